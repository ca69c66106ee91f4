// /models/:key: one model — its details, enable or disable in one click, and the edit form for what the
// API lets change (provider model, API, name, description, settings, labels; the key and the provider
// never change). Every change names the ETag the page was read at; a change someone made meanwhile is
// refused by the service, and the page explains it and offers to reload.
import { Spending } from '../../components/Spending';
import { ConsoleModelDocument, ConsoleModelProviderTypesDocument, ConsoleUpdateModelDocument } from '../../../generated/graphql';
import { lazy, Suspense, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '../../api';
import { DetailNotice, DetailPage, useDetailQuery, useVersionedMutation, type Detail } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { EditPanel, useEditForm } from '../../components/Forms';
import { Badge, EnabledStatePanel, Field, Loading, JsonView, LabelsField, Select, TextArea } from '../../components/ui';
import { formatLabels, parseLabels } from '../../lib/labels';
import { parseJsonObject } from '../../lib/json';
import { jsonSchema, modelApisOf, type ModelApiView, type ModelDetail } from './queries';
import { ProviderModelField } from './ModelsSection';

// Its charts come with the dashboards' chunk (and the charting library), loaded when the page shows them.
const EntityCharts = lazy(async () => ({ default: (await import('../dashboard')).EntityCharts }));
export function ModelPage() {
  const { key = '' } = useParams();
  const detail = useDetailQuery(ConsoleModelDocument, { key }, (data) => data.model);
  const types = useQuery(ConsoleModelProviderTypesDocument, {});
  const [update, updateState, reload] = useVersionedMutation(ConsoleUpdateModelDocument, detail);
  const model = detail.item;
  const apis = modelApisOf(types.data?.providerTypes.find((type) => type.type === model?.provider.type));

  return (
    <DetailPage
      detail={detail}
      title={model ? model.name || model.key : 'Model'}
      description={model?.description}
      back={{ to: '/models', label: 'All models' }}
      errorTitle="Could not read the model"
    >
      {(model) => (
        <>
          <Facts
            facts={[
              ['Key', <code>{model.key}</code>],
              [
                'Provider',
                <>
                  <Link to={`/models/providers/${model.provider.id}`}>{model.provider.name}</Link> (<code>{model.provider.type}</code>
                  {model.provider.enabled ? '' : ', disabled'})
                </>,
              ],
              ['Provider model', <code>{model.providerModel}</code>],
              ['API', model.api],
              ['State', <Badge value={model.enabled ? 'enabled' : 'disabled'} />],
              ['Version', model.version],
              ['Updated', <ChangedBy at={model.updatedAt} by={model.updatedById} />],
            ]}
          />
          <JsonView value={model.settings} label="Settings" />
          <Spending model={model.key} />
          <Suspense fallback={<Loading label="Loading the charts…" />}>
            <EntityCharts model={model.key} />
          </Suspense>
          <DetailNotice detail={detail} />
          <EnabledStatePanel
            what="model"
            enabled={model.enabled}
            explanation="A disabled model refuses new use at once: runs that would call it are refused (disabled)."
            state={updateState}
            onReload={reload}
            setEnabled={(enabled, notice) => update({ key: model.key, input: { enabled } }, notice)}
          />
          <EditModel key={model.etag} model={model} apis={apis} detail={detail} onReload={reload} />
        </>
      )}
    </DetailPage>
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
  detail,
  onReload,
}: {
  model: ModelDetail;
  apis: ModelApiView[];
  detail: Detail<ModelDetail>;
  onReload(): void;
}) {
  const [providerModel, setProviderModel] = useState(model.providerModel);
  const [api, setApi] = useState(model.api);
  const [name, setName] = useState(model.name);
  const [description, setDescription] = useState(model.description);
  const [settings, setSettings] = useState(JSON.stringify(model.settings, null, 2));
  const [labels, setLabels] = useState(formatLabels(model.labelList));
  // The model's own API stays a choice even if its type no longer lists it (the service then says why).
  const choices: ModelApiView[] = apis.some((entry) => entry.api === model.api)
    ? apis
    : [{ api: model.api, settingsSchema: null }, ...apis];

  const form = useEditForm(ConsoleUpdateModelDocument, detail, { key: model.key }, () => ({
    providerModel,
    api,
    name,
    description,
    settings: parseJsonObject(settings, 'Settings'),
    labels: parseLabels(labels),
  }));

  return (
    <EditPanel
      what="model"
      intro={<p className="muted">The key and the provider never change: for another provider, add a new model.</p>}
      form={form}
      withField
      onReload={onReload}
    >
      <ProviderModelField value={providerModel} onValue={setProviderModel} />
      <Select label="API" value={api} onValue={setApi} options={choices.map((entry) => ({ value: entry.api, label: entry.api }))} />
      <Field label="Name" value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <TextArea
        label="Settings (JSON)"
        hint={settingsHint(choices.find((entry) => entry.api === api))}
        rows={5}
        value={settings}
        onValue={setSettings}
      />
      <LabelsField value={labels} onChange={setLabels} />
    </EditPanel>
  );
}
