// The models list on /models: filtered by text, state and provider (kept in the address), each row
// enabled or disabled in place (its key opens the model's page, where it is edited), and the form that
// adds a model on one of the providers.
import { ConsoleCreateModelDocument, ConsoleModelsDocument, ConsoleUpdateModelDocument, type ModelInput } from '../../../generated/graphql';
import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation } from '../../api';
import { Badge, Checkbox, ErrorNotice, Field, LabelsField, Select, Status, TextArea } from '../../components/ui';
import { CreatePanel, useCreateForm } from '../../components/Forms';
import { labelWords, parseLabels } from '../../lib/labels';
import { parseJsonObject } from '../../lib/json';
import { usePagedQuery, type PagedQuery } from '../../lib/usePagedQuery';
import { useRefetchOnChange } from '../../lib/useRefetchOnChange';
import { ProviderFilters, ProviderSelect, useProviderFilters } from '../../components/ProviderFilters';
import { PagedTable, type Column } from '../../components/PagedTable';
import { modelApisOf, type ModelView, type ProviderTypeView, type ProviderView } from './queries';

const PAGE = 50;

export function ModelsSection({
  providers,
  types,
  changes,
}: {
  providers: ProviderView[];
  types: ProviderTypeView[];
  /** Counts models added elsewhere on the page (the development model button): each change reads the list again. */
  changes: number;
}) {
  const filters = useProviderFilters();
  const list = usePagedQuery(ConsoleModelsDocument, { first: PAGE, ...filters.variables }, (data) => data.models);
  const [notice, setNotice] = useState('');
  useRefetchOnChange(changes, list.refetch);
  const providerNames = new Map(providers.map((provider) => [provider.id, provider.name]));
  return (
    <>
      <section aria-labelledby="models-list">
        <h2 id="models-list">Models</h2>
        <ProviderFilters label="Filter models" filters={filters} providers={providers} />
        {notice ? <Status>{notice}</Status> : null}
        <ModelTable
          list={list}
          providerNames={providerNames}
          onChanged={async (message) => {
            await list.refetch();
            // Said once the list shows the new state (and its new ETags).
            setNotice(message);
          }}
        />
      </section>
      <CreateModel
        providers={providers}
        types={types}
        onCreated={async (key) => {
          await list.refetch();
          setNotice(`Model ${key} was added.`);
        }}
      />
    </>
  );
}

function ModelTable({
  list,
  providerNames,
  onChanged,
}: {
  list: PagedQuery<unknown, ModelView>;
  providerNames: Map<string, string>;
  onChanged(message: string): Promise<void>;
}) {
  const [update, state] = useMutation(ConsoleUpdateModelDocument);
  const columns: Column<ModelView>[] = [
    {
      name: 'Key',
      cell: (model) => (
        <Link to={`/models/${encodeURIComponent(model.key)}`}>
          <code>{model.key}</code>
        </Link>
      ),
    },
    { name: 'Name', cell: (model) => model.name },
    {
      name: 'Provider',
      cell: (model) => <Link to={`/models/providers/${model.providerId}`}>{providerNames.get(model.providerId) ?? model.providerId}</Link>,
    },
    { name: 'Provider model', cell: (model) => <code>{model.providerModel}</code> },
    { name: 'API', cell: (model) => model.api },
    { name: 'State', cell: (model) => <Badge value={model.enabled ? 'enabled' : 'disabled'} /> },
    { name: 'Labels', cell: (model) => labelWords(model.labelList) },
    {
      name: 'Actions',
      cell: (model) => (
        <button
          type="button"
          disabled={state.loading}
          aria-label={`${model.enabled ? 'Disable' : 'Enable'} ${model.key}`}
          onClick={async () => {
            const done = await update({ key: model.key, ifMatch: model.etag, input: { enabled: !model.enabled } });
            if (done) await onChanged(`Model ${model.key} is ${model.enabled ? 'disabled' : 'enabled'}.`);
          }}
        >
          {model.enabled ? 'Disable' : 'Enable'}
        </button>
      ),
    },
  ];
  return (
    <>
      <ErrorNotice error={state.error} title="Could not change the model" />
      <PagedTable list={list} columns={columns} empty="No models match." label="Models" />
    </>
  );
}

function CreateModel({
  providers,
  types,
  onCreated,
}: {
  providers: ProviderView[];
  types: ProviderTypeView[];
  onCreated(key: string): Promise<void>;
}) {
  const [providerId, setProviderId] = useState('');
  const [key, setKey] = useState('');
  const [providerModel, setProviderModel] = useState('');
  const [api, setApi] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [settings, setSettings] = useState('');
  const [labels, setLabels] = useState('');
  const [enabled, setEnabled] = useState(true);
  const chosen = providers.find((provider) => provider.id === providerId) ?? providers[0];
  const apis = modelApisOf(types.find((type) => type.type === chosen?.type));

  const form = useCreateForm(
    ConsoleCreateModelDocument,
    () => {
      if (!chosen) return undefined;
      const input: ModelInput = {
        key,
        providerId: chosen.id,
        providerModel,
        name,
        description,
        enabled,
        settings: parseJsonObject(settings, 'Settings'),
        labels: parseLabels(labels),
        // Left out, the service takes the type's first (default) API.
        ...(api && apis.some((entry) => entry.api === api) ? { api } : {}),
      };
      return input;
    },
    async (data) => {
      setKey('');
      setProviderModel('');
      setName('');
      setDescription('');
      setSettings('');
      setLabels('');
      await onCreated(data.createModel.model.key);
    },
  );

  return (
    <CreatePanel
      title="New model"
      missing={providers.length === 0 && 'Add a model provider first: a model is served by one.'}
      form={form}
      errorTitle="Could not add the model"
      busyLabel="Adding…"
      submitLabel="Add model"
    >
      <Field
        label="Key"
        required
        hint="What agents name the model by: lower-case letters, digits, dots and dashes."
        value={key}
        onValue={setKey}
      />
      <ProviderSelect label="Model provider" value={chosen?.id ?? ''} onValue={setProviderId} providers={providers} />
      <ProviderModelField value={providerModel} onValue={setProviderModel} />
      <Select
        label="API"
        value={api}
        onValue={setApi}
        options={[
          { value: '', label: `Default${apis[0] ? ` (${apis[0].api})` : ''}` },
          ...apis.map((a) => ({ value: a.api, label: a.api })),
        ]}
      />
      <Field label="Name" value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <TextArea
        label="Settings (JSON)"
        hint='e.g. {"temperature": 0.2, "max_output_tokens": 2048}; blank for none.'
        rows={3}
        value={settings}
        onValue={setSettings}
      />
      <LabelsField value={labels} onChange={setLabels} />
      <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} />
    </CreatePanel>
  );
}

/** The model's name at its provider, as the new-model and edit-model forms ask for it. */
export function ProviderModelField({ value, onValue }: { value: string; onValue(value: string): void }) {
  return (
    <Field label="Provider model" required hint="The model's name at the provider, e.g. gpt-4.1-mini." value={value} onValue={onValue} />
  );
}
