// /connections/:id: one connection — what it points at, a live test (connect and list the server's
// tools), the edit form (a new credential replaces the stored one; the stored one is never shown) and
// revoking the credential, behind a confirmation. An HTTP server can be authorized with OAuth: the
// button sends the browser to the server's authorization page, and the service's callback sends it
// back here with `?oauth=authorized`.
import {
  ConsoleConnectionDocument,
  ConsoleRevokeConnectionDocument,
  ConsoleStartConnectionAuthorizationDocument,
  ConsoleTestConnectionDocument,
  ConsoleUpdateConnectionDocument,
} from '../../../generated/graphql';
import { useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { useMutation } from '../../api';
import { TestPanel } from '../../components/TestPanel';
import { DetailNotice, DetailPage, useDetailQuery, useVersionedMutation, type Detail } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import type { UpdateConnectionInput } from '../../../generated/graphql';
import { Badge, Checkbox, ErrorNotice, Field, JsonView, LabelsField, Status } from '../../components/ui';
import { CredentialChoiceSelect, credentialChange, type CredentialChoice } from '../../components/CredentialChoice';
import { ConfirmButton } from '../../components/ConfirmDialog';
import { EditPanel, useEditForm } from '../../components/Forms';
import { formatLabels, parseLabels } from '../../lib/labels';
import { jsonObject } from '../../lib/json';
import { type ConnectionView } from './queries';
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
  const detail = useDetailQuery(ConsoleConnectionDocument, { id }, (data) => data.connection);
  const [revoke, revokeState] = useVersionedMutation(ConsoleRevokeConnectionDocument, detail);
  const connection = detail.item;
  return (
    <DetailPage
      detail={detail}
      title={connection?.name ?? 'Connection'}
      description={connection?.description}
      back={{ to: '/connections', label: 'All connections' }}
    >
      {(connection) => (
        <>
          <Facts
            facts={[
              ['Id', <code>{connection.id}</code>],
              ['State', <Badge value={connection.enabled ? 'enabled' : 'disabled'} />],
              ['Server', <code>{serverSummary(connection.config)}</code>],
              ['Credential', connection.credentialConfigured ? 'stored (never shown)' : 'none'],
              ['OAuth', connection.oauth ? <Badge value={connection.oauth.status} /> : 'not authorized'],
              ['Provider', <code>{connection.providerId}</code>],
              ['Version', connection.version],
              ['Updated', <ChangedBy at={connection.updatedAt} by={connection.updatedById} />],
            ]}
          />
          <JsonView value={connection.config} label="Configuration" />
          <DetailNotice detail={detail} />
          <TestConnection id={connection.id} />
          <AuthorizeConnection connection={connection} />
          <section aria-labelledby="revoke-heading" className="panel infra-panel">
            <h2 id="revoke-heading">Credential</h2>
            <p className="muted">
              Revoking removes the stored credential and the OAuth grant (revoked at the server where it allows); the connection's tools
              fail until a new one is saved below or it is authorized again.
            </p>
            <ErrorNotice error={revokeState.error} title="Could not revoke" />
            <ConfirmButton
              label="Revoke credential"
              title="Revoke the credential?"
              confirmLabel="Revoke"
              disabled={!(connection.credentialConfigured || connection.oauth) || revokeState.loading}
              onConfirm={() => revoke({ id: connection.id }, 'The credential was revoked.')}
            >
              <p>
                The credential of <strong>{connection.name}</strong> is removed at once; runs using its tools fail until a new credential is
                stored.
              </p>
            </ConfirmButton>
          </section>
          <EditConnection key={connection.etag} connection={connection} detail={detail} />
        </>
      )}
    </DetailPage>
  );
}

/** OAuth 2.1: the state of the grant, and a button that starts the authorization in this window. */
function AuthorizeConnection({ connection }: { connection: ConnectionView }) {
  const [start, state] = useMutation(ConsoleStartConnectionAuthorizationDocument);
  const [params] = useSearchParams();
  if (jsonObject(connection.config).transport === 'stdio') return null;
  const authorize = async () => {
    const data = await start({ id: connection.id });
    if (data) window.location.assign(data.startConnectionAuthorization.authorizationUrl);
  };
  return (
    <section aria-labelledby="oauth-heading" className="panel infra-panel">
      <h2 id="oauth-heading">OAuth</h2>
      <p className="muted">
        For servers that require OAuth 2.1: you approve the service at the server's authorization page, then come back here.
      </p>
      {params.get('oauth') === 'authorized' && <Status>The connection was authorized.</Status>}
      {connection.oauth?.status === 'refresh_failed' && (
        <div role="alert" className="notice error">
          The authorization could not be refreshed: {connection.oauth.reason ?? 'no reason given'}. Its tools fail until it is authorized
          again.
        </div>
      )}
      <ErrorNotice error={state.error} title="Could not start the authorization" />
      <button type="button" onClick={() => void authorize()} disabled={state.loading}>
        {connection.oauth ? 'Authorize again' : 'Authorize with OAuth'}
      </button>
    </section>
  );
}

function TestConnection({ id }: { id: string }) {
  return (
    <TestPanel
      document={ConsoleTestConnectionDocument}
      variables={{ id }}
      outcomeOf={(data) => data.testConnection}
      buttonLabel="Test connection"
      className="panel infra-panel"
      explanation="Connects to the server afresh and lists its tools."
      describe={(outcome) =>
        outcome.status === 'succeeded'
          ? `Test succeeded: the server lists ${outcome.toolCount ?? 0} tools.`
          : `Test failed: ${outcome.message ?? 'no reason given'}`
      }
    />
  );
}

function EditConnection({ connection, detail }: { connection: ConnectionView; detail: Detail<ConnectionView> }) {
  const [name, setName] = useState(connection.name);
  const [description, setDescription] = useState(connection.description);
  const [enabled, setEnabled] = useState(connection.enabled);
  const [labels, setLabels] = useState(formatLabels(connection.labelList));
  const [server, setServer] = useState(serverDraftFrom(connection.config));
  const [choice, setChoice] = useState<CredentialChoice>('keep');
  const [credential, setCredential] = useState(emptyCredential);

  const form = useEditForm(ConsoleUpdateConnectionDocument, detail, { id: connection.id }, () => {
    const config = configFrom(server);
    const input: UpdateConnectionInput = { name, description, enabled, labels: parseLabels(labels) };
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
    return input;
  });

  return (
    <EditPanel what="connection" className="panel infra-panel" form={form}>
      <Field label="Name" required value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <ServerFields draft={server} onChange={setServer} />
      <CredentialChoiceSelect stored={connection.credentialConfigured} value={choice} onChange={setChoice} />
      {choice === 'replace' ? <CredentialFields draft={credential} onChange={setCredential} /> : null}
      <LabelsField value={labels} onChange={setLabels} />
      <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} />
    </EditPanel>
  );
}
