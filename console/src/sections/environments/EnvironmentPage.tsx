// /environments/:id: one environment — its status (read again after every action), where it is, and
// the state moves: start a stopped one, stop a ready one, destroy it (both behind a confirmation).
import {
  ConsoleDestroyEnvironmentDocument,
  ConsoleEnvironmentDocument,
  ConsoleStartEnvironmentDocument,
  ConsoleStopEnvironmentDocument,
} from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation } from '../../api';
import { DetailPage, useDetailQuery } from '../../components/DetailPage';
import { Facts } from '../../components/Facts';
import { Badge, ErrorNotice, JsonView, Time } from '../../components/ui';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { labelWords } from '../../lib/labels';

export function EnvironmentPage() {
  const { id = '' } = useParams();
  const detail = useDetailQuery(ConsoleEnvironmentDocument, { id }, (data) => data.environment);
  const [start, startState] = useMutation(ConsoleStartEnvironmentDocument);
  const [stop, stopState] = useMutation(ConsoleStopEnvironmentDocument);
  const [destroy, destroyState] = useMutation(ConsoleDestroyEnvironmentDocument);
  const [pending, setPending] = useState('');
  const busy = startState.loading || stopState.loading || destroyState.loading;

  // Every action answers the environment, but the page reads it again so every fact shown is current.
  async function act(what: string, action: () => Promise<unknown>) {
    setPending(what);
    await action();
    await detail.query.refetch();
    setPending('');
  }

  return (
    <DetailPage detail={detail} title={detail.item?.name ?? 'Environment'} back={{ to: '/environments', label: 'All environments' }}>
      {(environment) => (
        <>
          <p role="status" aria-live="polite" className="notice">
            Status: <Badge value={environment.status} />
            {pending ? <span className="muted"> — {pending}…</span> : null}
          </p>
          {environment.failureMessage ? (
            <p className="notice error">
              <strong>Provisioning failed: </strong>
              {environment.failureMessage}
            </p>
          ) : null}
          <div className="actions" role="group" aria-label="Environment actions">
            {environment.status === 'stopped' ? (
              <button type="button" disabled={busy} onClick={() => void act('Starting', () => start({ id: environment.id }))}>
                Start
              </button>
            ) : null}
            {environment.status === 'ready' ? (
              <ConfirmButton
                label="Stop"
                title="Stop this environment?"
                confirmLabel="Stop environment"
                disabled={busy}
                onConfirm={() => act('Stopping', () => stop({ id: environment.id }))}
              >
                <p>Every command still running in {environment.name} ends. Its files stay; start it again later.</p>
              </ConfirmButton>
            ) : null}
            {environment.status !== 'destroyed' ? (
              <ConfirmButton
                label="Destroy"
                title="Destroy this environment?"
                confirmLabel="Destroy environment"
                disabled={busy}
                onConfirm={() => act('Destroying', () => destroy({ id: environment.id }))}
              >
                <p>The instance of {environment.name} and every file in it are removed for good. The record stays, marked destroyed.</p>
              </ConfirmButton>
            ) : null}
          </div>
          <ErrorNotice error={startState.error ?? stopState.error ?? destroyState.error} title="The service refused" />
          <Facts
            facts={[
              ['Id', <code>{environment.id}</code>],
              [
                'Template',
                environment.template ? (
                  <Link to={`/environments/templates/${environment.template.id}`}>{environment.template.name}</Link>
                ) : (
                  '—'
                ),
              ],
              [
                'Provider',
                <>
                  {environment.provider.name} ({environment.provider.type})
                </>,
              ],
              ['Instance', environment.instanceId ? <code>{environment.instanceId}</code> : '—'],
              ['Working directory', environment.workingDirectory ? <code>{environment.workingDirectory}</code> : '—'],
              ['Labels', labelWords(environment.labelList) || '—'],
              ['Version', environment.version],
              ['Created', <Time value={environment.createdAt} />],
              ['Destroyed', <Time value={environment.destroyedAt} />],
            ]}
          />
          <section aria-labelledby="environment-config">
            <h2 id="environment-config">Configuration</h2>
            <p className="muted">The template's configuration as it was when the environment was made.</p>
            <JsonView value={environment.config} label="Configuration" />
          </section>
          <section aria-labelledby="environment-runs">
            <h2 id="environment-runs">Runs that mount it</h2>
            {environment.runIds.length ? (
              <ul>
                {environment.runIds.map((runId) => (
                  <li key={runId}>
                    <Link to={`/runs/${runId}`}>{runId}</Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">None.</p>
            )}
          </section>
        </>
      )}
    </DetailPage>
  );
}
