// /models: the workspace's model providers (with the form that adds one of any installed type, and the
// one-click offline development model) and its models (filtered by text, state and provider; added on
// a provider; enabled and disabled in place).
import {
  ConsoleCreateModelProviderDocument,
  ConsoleModelProviderTypesDocument,
  ConsoleModelProvidersDocument,
} from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useQuery } from '../../api';
import type { CreateProviderInput } from '../../../generated/graphql';
import { Badge, Checkbox, ErrorNotice, Field, JsonView, LabelsField, Loading, PageHeader, Select, Status } from '../../components/ui';
import { ConfigField, CreatePanel, useCreateForm } from '../../components/Forms';
import { labelWords, parseLabels } from '../../lib/labels';
import { parseJsonObject } from '../../lib/json';
import { PagedTable, type Column } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { DevModelButton } from './DevModelButton';
import { ModelsSection } from './ModelsSection';
import { modelApisOf, type ProviderTypeView, type ProviderView } from './queries';
import { credentialFrom, SecretFields, type SecretDraft } from './SecretFields';
import { headersFrom, HeaderRows, type HeaderRow } from './ExtraHeaders';

export function ModelsPage() {
  const types = useQuery(ConsoleModelProviderTypesDocument, {});
  // Model providers are few; 100 a page, with "Load more" for a workspace that has more.
  const providers = usePagedQuery(ConsoleModelProvidersDocument, { first: 100 }, (data) => data.providers);
  const [notice, setNotice] = useState('');
  const [modelChanges, setModelChanges] = useState(0);
  const typeList = types.data?.providerTypes ?? [];
  const hasDevType = typeList.some((type) => type.type === 'development');
  return (
    <>
      <PageHeader title="Models">The services that answer the agents (model providers) and the models agents name by key.</PageHeader>
      {notice ? <Status>{notice}</Status> : null}
      <section aria-labelledby="providers-list">
        <h2 id="providers-list">Model providers</h2>
        {hasDevType ? (
          <DevModelButton
            existingProviderId={providers.nodes.find((provider) => provider.type === 'development' && provider.enabled)?.id}
            onDone={async (key) => {
              await providers.refetch();
              setModelChanges((count) => count + 1);
              setNotice(`The offline development model was added: agents can name the model “${key}”.`);
            }}
          />
        ) : null}
        <ErrorNotice error={types.error} />
        <PagedTable
          list={providers}
          columns={providerColumns(typeList)}
          empty={
            <>No model provider yet: add one below{hasDevType ? ', or add the offline development model to try an agent at once' : ''}.</>
          }
          label="Model providers"
        />
      </section>
      <ModelsSection providers={providers.nodes} types={typeList} changes={modelChanges} />
      <CreateProvider types={typeList} />
    </>
  );
}

function providerColumns(types: ProviderTypeView[]): Column<ProviderView>[] {
  const titles = new Map(types.map((type) => [type.type, type.title]));
  return [
    { name: 'Name', cell: (provider) => <Link to={`/models/providers/${provider.id}`}>{provider.name}</Link> },
    {
      name: 'Type',
      cell: (provider) => (
        <>
          {titles.get(provider.type) ?? provider.type} (<code>{provider.type}</code>)
        </>
      ),
    },
    { name: 'State', cell: (provider) => <Badge value={provider.enabled ? 'enabled' : 'disabled'} /> },
    { name: 'Credential', cell: (provider) => (provider.credentialConfigured ? 'stored' : 'none') },
    { name: 'Labels', cell: (provider) => labelWords(provider.labelList) },
  ];
}

/** The type's description: its title, where to get a credential, what it probes, its schemas. */
export function ProviderTypeDescription({ type }: { type: ProviderTypeView }) {
  return (
    <div className="provider-type">
      <p>
        <strong>{type.title}</strong> (<code>{type.type}</code>).{' '}
        {type.credentialRequired ? 'Needs a credential.' : 'A credential is optional or not used.'}{' '}
        {type.testSupported ? 'Test probes the service.' : 'Test is not supported: the first run proves the credential.'}
        {modelApisOf(type).length
          ? ` Model APIs: ${modelApisOf(type)
              .map((api) => api.api)
              .join(', ')}.`
          : ''}
        {type.setupUrl ? (
          <>
            {' '}
            Get a credential at <a href={type.setupUrl}>{type.setupUrl}</a>.
          </>
        ) : null}
      </p>
      <JsonView value={type.configurationSchema} label="Configuration schema" />
    </div>
  );
}

function CreateProvider({ types }: { types: ProviderTypeView[] }) {
  const navigate = useNavigate();
  const [typeName, setTypeName] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [config, setConfig] = useState('');
  const [secret, setSecret] = useState<SecretDraft>({});
  const [labels, setLabels] = useState('');
  const [headerRows, setHeaderRows] = useState<HeaderRow[]>([]);
  const [enabled, setEnabled] = useState(true);
  const chosen = types.find((type) => type.type === typeName) ?? types[0];

  const form = useCreateForm(
    ConsoleCreateModelProviderDocument,
    () => {
      if (!chosen) return undefined;
      const credential = credentialFrom(secret);
      const extraHeaders = headersFrom(headerRows);
      const input: CreateProviderInput = {
        type: chosen.type,
        name,
        description,
        enabled,
        config: parseJsonObject(config, 'Configuration'),
        labels: parseLabels(labels),
        ...(credential ? { credential } : {}),
        ...(Object.keys(extraHeaders).length ? { extraHeaders } : {}),
      };
      return input;
    },
    (data) => navigate(`/models/providers/${data.createProvider.provider.id}`),
  );

  return (
    <CreatePanel
      title="New model provider"
      intro={chosen ? null : <Loading />}
      ready={!!chosen}
      form={form}
      errorTitle="Could not create the provider"
      withField
      submitLabel="Create provider"
    >
      {chosen ? (
        <>
          <Select
            label="Type"
            value={chosen.type}
            onChange={(event) => {
              setTypeName(event.target.value);
              // Another type has other credential members.
              setSecret({});
            }}
            options={types.map((type) => ({ value: type.type, label: `${type.title} (${type.type})` }))}
          />
          <ProviderTypeDescription type={chosen} />
          <Field label="Name" required value={name} onValue={setName} />
          <Field label="Description" value={description} onValue={setDescription} />
          <ConfigField
            hint='A JSON object matching the configuration schema above, e.g. {"base_url": "https://…"}; blank for none.'
            value={config}
            onValue={setConfig}
          />
          <SecretFields key={chosen.type} schema={chosen.credentialSchema} draft={secret} onChange={setSecret} />
          <HeaderRows
            legend="Extra headers (optional, sent with every request; values never shown back)"
            rows={headerRows}
            onChange={setHeaderRows}
          />
          <LabelsField value={labels} onChange={setLabels} />
          <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} />
        </>
      ) : null}
    </CreatePanel>
  );
}
