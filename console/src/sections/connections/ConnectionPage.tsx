// /connections/:id: one connection — what it points at, a live test (connect and list the server's
// tools), the edit form (a new credential replaces the stored one; the stored one is never shown) and
// revoking the credential, behind a confirmation.
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Badge, ErrorNotice, Field, JsonView, Loading, PageHeader, Status, TextArea, Time, Checkbox } from '../../components/ui';
import { CredentialChoiceSelect, credentialChange, type CredentialChoice } from '../../components/CredentialChoice';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { formatLabels, parseLabels } from '../../lib/labels';
import { CONNECTION, REVOKE_CONNECTION, TEST_CONNECTION, UPDATE_CONNECTION, type ConnectionView } from './queries';
import {
  configFrom,
  credentialFrom,
  CredentialFields,
  emptyCredential,
  serverDraftFrom,
  ServerFields,
  serverSummary,
} from './ServerFields';

export function ConnectionPage() {
  const { id = '' } = useParams();
  const { data, error, loading, refetch } = useQuery(CONNECTION, { id });
  const [revoke, revokeState] = useMutation(REVOKE_CONNECTION);
  const [notice, setNotice] = useState('');
  const connection = data?.connection;
  return (
    <>
      <PageHeader title={connection?.name ?? 'Connection'} actions={<Link to="/connections">All connections</Link>}>
        {connection?.description}
      </PageHeader>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {connection ? (
        <>
          <dl className="facts">
            <dt>Id</dt>
            <dd>
              <code>{connection.id}</code>
            </dd>
            <dt>State</dt>
            <dd>
              <Badge value={connection.enabled ? 'enabled' : 'disabled'} />
            </dd>
            <dt>Server</dt>
            <dd>
              <code>{serverSummary(connection.config)}</code>
            </dd>
            <dt>Credential</dt>
            <dd>{connection.credentialConfigured ? 'stored (never shown)' : 'none'}</dd>
            <dt>Provider</dt>
            <dd>
              <code>{connection.providerId}</code>
            </dd>
            <dt>Version</dt>
            <dd>{connection.version}</dd>
            <dt>Updated</dt>
            <dd>
              <Time value={connection.updatedAt} /> by <code>{connection.updatedById}</code>
            </dd>
          </dl>
          <JsonView value={connection.config} label="Configuration" />
          {notice ? <Status>{notice}</Status> : null}
          <TestConnection id={connection.id} />
          <section aria-labelledby="revoke-heading" className="panel infra-panel">
            <h2 id="revoke-heading">Credential</h2>
            <p className="muted">Revoking removes the stored credential; the connection's tools fail until a new one is saved below.</p>
            <ErrorNotice error={revokeState.error} title="Could not revoke" />
            <ConfirmButton
              label="Revoke credential"
              title="Revoke the credential?"
              confirmLabel="Revoke"
              disabled={!connection.credentialConfigured || revokeState.loading}
              onConfirm={async () => {
                const done = await revoke({ id: connection.id, ifMatch: connection.etag });
                if (done) {
                  await refetch();
                  // Said once the page shows the new state (and its new ETag), so the next change starts from it.
                  setNotice('The credential was revoked.');
                }
              }}
            >
              <p>
                The credential of <strong>{connection.name}</strong> is removed at once; runs using its tools fail until a new credential is
                stored.
              </p>
            </ConfirmButton>
          </section>
          <EditConnection
            key={connection.etag}
            connection={connection}
            onSaved={async () => {
              await refetch();
              // Said once the page shows the new state (and its new ETag), so the next change starts from it.
              setNotice('Saved.');
            }}
          />
        </>
      ) : null}
    </>
  );
}

function TestConnection({ id }: { id: string }) {
  const [test, state] = useMutation(TEST_CONNECTION);
  const [result, setResult] = useState<{ status: string; message: string | null; toolCount: number | null } | null>(null);
  useEffect(() => setResult(null), [id]);
  return (
    <section aria-labelledby="test-heading" className="panel infra-panel">
      <h2 id="test-heading">Test</h2>
      <p className="muted">Connects to the server afresh and lists its tools.</p>
      <button
        type="button"
        disabled={state.loading}
        onClick={async () => {
          setResult(null);
          const data = await test({ id });
          if (data) setResult(data.testConnection);
        }}
      >
        {state.loading ? 'Testing…' : 'Test connection'}
      </button>
      <ErrorNotice error={state.error} title="Could not test" />
      <div role="status" aria-live="polite" className="notice" hidden={!result}>
        {result ? (
          <>
            <Badge value={result.status} />{' '}
            {result.status === 'succeeded'
              ? `Test succeeded: the server lists ${result.toolCount ?? 0} tools.`
              : `Test failed: ${result.message ?? 'no reason given'}`}
          </>
        ) : null}
      </div>
    </section>
  );
}

function EditConnection({ connection, onSaved }: { connection: ConnectionView; onSaved(): Promise<void> }) {
  const [update, state] = useMutation(UPDATE_CONNECTION);
  const [name, setName] = useState(connection.name);
  const [description, setDescription] = useState(connection.description);
  const [enabled, setEnabled] = useState(connection.enabled);
  const [labels, setLabels] = useState(formatLabels(connection.labelList));
  const [server, setServer] = useState(serverDraftFrom(connection.config));
  const [choice, setChoice] = useState<CredentialChoice>('keep');
  const [credential, setCredential] = useState(emptyCredential);
  const [formError, setFormError] = useState<unknown>(undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    let input: Record<string, unknown>;
    try {
      const config = configFrom(server);
      input = { name, description, enabled, labels: parseLabels(labels) };
      // Config is sent only when it changed: the service asks for the credential with a config change.
      if (JSON.stringify(config) !== JSON.stringify(configFrom(serverDraftFrom(connection.config)))) input.config = config;
      Object.assign(
        input,
        credentialChange(
          choice,
          choice === 'replace' ? credentialFrom(credential) : null,
          'Enter the new credential (a bearer token or headers), or keep the stored one',
        ),
      );
    } catch (error) {
      setFormError(error);
      return;
    }
    const data = await update({ id: connection.id, ifMatch: connection.etag, input });
    if (data) await onSaved();
  }

  return (
    <section aria-labelledby="edit-connection" className="panel infra-panel">
      <h2 id="edit-connection">Edit</h2>
      <form onSubmit={submit} aria-label="Edit connection">
        <Field label="Name" required value={name} onChange={(event) => setName(event.target.value)} />
        <Field label="Description" value={description} onChange={(event) => setDescription(event.target.value)} />
        <ServerFields draft={server} onChange={setServer} />
        <CredentialChoiceSelect stored={connection.credentialConfigured} value={choice} onChange={setChoice} />
        {choice === 'replace' ? <CredentialFields draft={credential} onChange={setCredential} /> : null}
        <TextArea label="Labels" hint="One key=value a line." rows={2} value={labels} onChange={(event) => setLabels(event.target.value)} />
        <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} />
        <ErrorNotice error={formError ?? state.error} title="Could not save" />
        <button type="submit" disabled={state.loading}>
          {state.loading ? 'Saving…' : 'Save changes'}
        </button>
      </form>
    </section>
  );
}
