// /models/:key: one model — its details, enable or disable in one click, and the edit form for what the
// API lets change (provider model, API, name, description, settings, labels; the key and the provider
// never change). Every change names the ETag the page was read at; a change someone made meanwhile is
// refused by the service, and the page explains it and offers to reload.
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import {
  Badge,
  EnabledStatePanel,
  ErrorNotice,
  Field,
  JsonView,
  Loading,
  PageHeader,
  Select,
  Status,
  TextArea,
  Time,
} from '../../components/ui';
import { formatLabels, parseLabels } from '../../lib/labels';
import { parseJsonObject } from '../../lib/json';
import { MODEL, MODEL_PROVIDER_TYPES, UPDATE_MODEL, jsonSchema, modelApisOf, type ModelApiView, type ModelDetail } from './queries';

export function ModelPage() {
  const { key = '' } = useParams();
  const { data, error, loading, refetch } = useQuery(MODEL, { key });
  const types = useQuery(MODEL_PROVIDER_TYPES, {});
  const [update, updateState, resetUpdate] = useMutation(UPDATE_MODEL);
  const [notice, setNotice] = useState('');
  const model = data?.model;
  const apis = modelApisOf(types.data?.providerTypes.find((type) => type.type === model?.provider.type));

  async function saved(message: string) {
    await refetch();
    // Said once the page shows the new state (and its new ETag), so the next change starts from it.
    setNotice(message);
  }

  // After a refused If-Match: the model as it is now. The edit form is keyed by the ETag, so it starts
  // again from the new version.
  async function reload() {
    setNotice('');
    resetUpdate();
    await refetch();
  }

  return (
    <>
      <PageHeader title={model ? model.name || model.key : 'Model'} actions={<Link to="/models">All models</Link>}>
        {model?.description}
      </PageHeader>
      <ErrorNotice error={error} title="Could not read the model" />
      {loading && !data ? <Loading /> : null}
      {model ? (
        <>
          <dl className="facts">
            <dt>Key</dt>
            <dd>
              <code>{model.key}</code>
            </dd>
            <dt>Provider</dt>
            <dd>
              <Link to={`/models/providers/${model.provider.id}`}>{model.provider.name}</Link> (<code>{model.provider.type}</code>
              {model.provider.enabled ? '' : ', disabled'})
            </dd>
            <dt>Provider model</dt>
            <dd>
              <code>{model.providerModel}</code>
            </dd>
            <dt>API</dt>
            <dd>{model.api}</dd>
            <dt>State</dt>
            <dd>
              <Badge value={model.enabled ? 'enabled' : 'disabled'} />
            </dd>
            <dt>Version</dt>
            <dd>{model.version}</dd>
            <dt>Updated</dt>
            <dd>
              <Time value={model.updatedAt} /> by <code>{model.updatedById}</code>
            </dd>
          </dl>
          <JsonView value={model.settings} label="Settings" />
          {notice ? <Status>{notice}</Status> : null}
          <EnabledStatePanel
            what="model"
            enabled={model.enabled}
            explanation="A disabled model refuses new use at once: runs that would call it are refused (disabled)."
            error={updateState.error}
            busy={updateState.loading}
            onReload={() => void reload()}
            onToggle={async () => {
              const done = await update({ key: model.key, ifMatch: model.etag, input: { enabled: !model.enabled } });
              if (done) await saved(model.enabled ? 'The model is disabled.' : 'The model is enabled.');
            }}
          />
          <EditModel key={model.etag} model={model} apis={apis} onSaved={() => saved('Saved.')} onReload={() => void reload()} />
        </>
      ) : null}
    </>
  );
}

/** The settings members an API reads, in words for the settings field's hint. */
function settingsHint(api: ModelApiView | undefined): string {
  const members = Object.keys(jsonSchema(api?.settingsSchema).properties ?? {});
  const example = 'e.g. {"temperature": 0.2, "max_output_tokens": 2048}; blank for none.';
  return members.length ? `A JSON object; the ${api!.api} API reads ${members.join(', ')}; ${example}` : `A JSON object, ${example}`;
}

function EditModel({
  model,
  apis,
  onSaved,
  onReload,
}: {
  model: ModelDetail;
  apis: ModelApiView[];
  onSaved(): Promise<void>;
  onReload(): void;
}) {
  const [update, state] = useMutation(UPDATE_MODEL);
  const [providerModel, setProviderModel] = useState(model.providerModel);
  const [api, setApi] = useState(model.api);
  const [name, setName] = useState(model.name);
  const [description, setDescription] = useState(model.description);
  const [settings, setSettings] = useState(JSON.stringify(model.settings, null, 2));
  const [labels, setLabels] = useState(formatLabels(model.labelList));
  const [formError, setFormError] = useState<unknown>(undefined);
  // The model's own API stays a choice even if its type no longer lists it (the service then says why).
  const choices: ModelApiView[] = apis.some((entry) => entry.api === model.api)
    ? apis
    : [{ api: model.api, settingsSchema: null }, ...apis];

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    let input: Record<string, unknown>;
    try {
      input = {
        providerModel,
        api,
        name,
        description,
        settings: parseJsonObject(settings, 'Settings'),
        labels: parseLabels(labels),
      };
    } catch (error) {
      setFormError(error);
      return;
    }
    const data = await update({ key: model.key, ifMatch: model.etag, input });
    if (data) await onSaved();
  }

  return (
    <section aria-labelledby="edit-model" className="panel">
      <h2 id="edit-model">Edit</h2>
      <p className="muted">The key and the provider never change: for another provider, add a new model.</p>
      <form onSubmit={submit} aria-label="Edit model">
        <Field
          label="Provider model"
          required
          hint="The model's name at the provider, e.g. gpt-4.1-mini."
          value={providerModel}
          onChange={(event) => setProviderModel(event.target.value)}
        />
        <Select
          label="API"
          value={api}
          onChange={(event) => setApi(event.target.value)}
          options={choices.map((entry) => ({ value: entry.api, label: entry.api }))}
        />
        <Field label="Name" value={name} onChange={(event) => setName(event.target.value)} />
        <Field label="Description" value={description} onChange={(event) => setDescription(event.target.value)} />
        <TextArea
          label="Settings (JSON)"
          hint={settingsHint(choices.find((entry) => entry.api === api))}
          rows={5}
          value={settings}
          onChange={(event) => setSettings(event.target.value)}
        />
        <TextArea label="Labels" hint="One key=value a line." rows={2} value={labels} onChange={(event) => setLabels(event.target.value)} />
        <ErrorNotice error={formError ?? state.error} title="Could not save" withField stale={{ what: 'model', onReload }} />
        <button type="submit" disabled={state.loading}>
          {state.loading ? 'Saving…' : 'Save changes'}
        </button>
      </form>
    </section>
  );
}
