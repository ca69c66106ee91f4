// /environments/templates/:id: one environment template — its configuration and the edit form
// (enabling and disabling included: a template is retired by disabling it, never deleted).
import { ConsoleEnvironmentTemplateDocument, ConsoleUpdateEnvironmentTemplateDocument } from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { DetailNotice, DetailPage, useDetailQuery, useVersionedMutation, type Detail } from '../../components/DetailPage';
import { Facts } from '../../components/Facts';
import { ConfigField, EditPanel, useEditForm } from '../../components/Forms';
import { Badge, Field, LabelsField, Time } from '../../components/ui';
import { parseJsonObject } from '../../lib/json';
import { formatLabels, parseLabels } from '../../lib/labels';
import { type TemplateView } from './queries';

export function TemplatePage() {
  const { id = '' } = useParams();
  const detail = useDetailQuery(ConsoleEnvironmentTemplateDocument, { id }, (data) => data.environmentTemplate);
  const [update, updateState] = useVersionedMutation(ConsoleUpdateEnvironmentTemplateDocument, detail);
  const template = detail.item;

  return (
    <DetailPage
      detail={detail}
      title={template?.name ?? 'Environment template'}
      description={template?.description}
      back={{ to: '/environments', label: 'All environments' }}
    >
      {(template) => (
        <>
          <Facts
            facts={[
              ['Id', <code>{template.id}</code>],
              [
                'State',
                <>
                  <Badge value={template.enabled ? 'enabled' : 'disabled'} />{' '}
                  <button
                    type="button"
                    className="secondary"
                    disabled={updateState.loading}
                    onClick={() =>
                      void update(
                        { id: template.id, input: { enabled: !template.enabled } },
                        template.enabled ? 'Template disabled.' : 'Template enabled.',
                      )
                    }
                  >
                    {template.enabled ? 'Disable template' : 'Enable template'}
                  </button>
                </>,
              ],
              [
                'Provider',
                <>
                  {template.provider.name} ({template.provider.type})
                </>,
              ],
              ['Version', template.version],
              ['Updated', <Time value={template.updatedAt} />],
            ]}
          />
          <DetailNotice detail={detail} />
          <p>
            <Link to={`/environments?template=${template.id}`}>Create an environment from it</Link> on the environments page (a disabled
            template refuses new environments).
          </p>
          <EditTemplate key={template.etag} template={template} detail={detail} />
        </>
      )}
    </DetailPage>
  );
}

function EditTemplate({ template, detail }: { template: TemplateView; detail: Detail<TemplateView> }) {
  const [name, setName] = useState(template.name);
  const [description, setDescription] = useState(template.description);
  const [config, setConfig] = useState(JSON.stringify(template.config, null, 2));
  const [labels, setLabels] = useState(formatLabels(template.labelList));
  const form = useEditForm(ConsoleUpdateEnvironmentTemplateDocument, detail, { id: template.id }, () => ({
    name,
    description,
    config: parseJsonObject(config, 'Configuration'),
    labels: parseLabels(labels),
  }));

  return (
    <EditPanel what="template" className="panel infra-panel" form={form}>
      <Field label="Template name" required value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <ConfigField rows={6} value={config} onValue={setConfig} />
      <LabelsField value={labels} onChange={setLabels} />
    </EditPanel>
  );
}
