// /connections: the workspace's MCP connections, filtered by text, state and provider, and the form
// that creates one (its credential typed as a secret and never shown back).
import { ConsoleConnectionsDocument, ConsoleConnectorProvidersDocument, ConsoleCreateConnectionDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useQuery } from '../../api';
import type { ProviderChoiceFragment } from '../../../generated/graphql';
import { Badge, Checkbox, Field, LabelsField, PageHeader, Time } from '../../components/ui';
import { CreatePanel, useCreateForm } from '../../components/Forms';
import { labelWords, parseLabels } from '../../lib/labels';
import { PagedTable, type Column } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { ProviderFilters, ProviderSelect, useProviderFilters } from '../../components/ProviderFilters';
import { type ConnectionView } from './queries';
import {
  configFrom,
  credentialFrom,
  CredentialFields,
  emptyCredential,
  ServerFields,
  serverSummary,
  type ServerDraft,
} from './ServerFields';

const PAGE = 50;

export function ConnectionsPage() {
  const filters = useProviderFilters();
  const providers = useQuery(ConsoleConnectorProvidersDocument, {});
  const list = usePagedQuery(ConsoleConnectionsDocument, { first: PAGE, ...filters.variables }, (data) => data.connections);

  const providerNames = new Map((providers.data?.providers.nodes ?? []).map((provider) => [provider.id, provider.name]));
  return (
    <>
      <PageHeader title="Connections">MCP servers the workspace’s agents reach through their connection tools.</PageHeader>
      <section aria-labelledby="connections-list">
        <h2 id="connections-list">Connections</h2>
        <ProviderFilters label="Filter connections" filters={filters} providers={providers.data?.providers.nodes ?? []} />
        <PagedTable list={list} columns={connectionColumns(providerNames)} empty="No connections match." label="Connections" />
      </section>
      <CreateConnection providers={providers.data?.providers.nodes ?? []} />
    </>
  );
}

function connectionColumns(providerNames: Map<string, string>): Column<ConnectionView>[] {
  return [
    { name: 'Name', cell: (connection) => <Link to={`/connections/${connection.id}`}>{connection.name}</Link> },
    { name: 'Server', cell: (connection) => <code>{serverSummary(connection.config)}</code> },
    { name: 'Provider', cell: (connection) => providerNames.get(connection.providerId) ?? connection.providerId },
    { name: 'State', cell: (connection) => <Badge value={connection.enabled ? 'enabled' : 'disabled'} /> },
    { name: 'Credential', cell: (connection) => (connection.credentialConfigured ? 'stored' : 'none') },
    { name: 'Labels', cell: (connection) => labelWords(connection.labelList) },
    { name: 'Updated', cell: (connection) => <Time value={connection.updatedAt} /> },
  ];
}

function CreateConnection({ providers }: { providers: ProviderChoiceFragment[] }) {
  const navigate = useNavigate();
  const [providerId, setProviderId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [labels, setLabels] = useState('');
  const [enabled, setEnabled] = useState(true);
  const [server, setServer] = useState<ServerDraft>({ transport: 'streamable_http', url: '', command: '', args: '' });
  const [credential, setCredential] = useState(emptyCredential);
  const chosenProvider = providerId || providers[0]?.id || '';

  const form = useCreateForm(
    ConsoleCreateConnectionDocument,
    () => {
      const secret = credentialFrom(credential);
      return {
        providerId: chosenProvider,
        name,
        description,
        enabled,
        labels: parseLabels(labels),
        config: configFrom(server),
        ...(secret ? { credential: secret } : {}),
      };
    },
    (data) => navigate(`/connections/${data.createConnection.connection.id}`),
  );

  return (
    <CreatePanel
      title="New connection"
      className="panel infra-panel"
      missing={providers.length === 0 && 'The workspace has no connector provider yet: add one (type mcp) before creating connections.'}
      form={form}
      errorTitle="Could not create the connection"
      submitLabel="Create connection"
    >
      <ProviderSelect label="Connector provider" value={chosenProvider} onValue={setProviderId} providers={providers} />
      <Field label="Name" required value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <ServerFields draft={server} onChange={setServer} />
      <CredentialFields draft={credential} onChange={setCredential} />
      <LabelsField value={labels} onChange={setLabels} />
      <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} />
    </CreatePanel>
  );
}
