// /environments/templates/:id: one environment template — its configuration and the edit form
// (enabling and disabling included: a template is retired by disabling it, never deleted).
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery } from '../../api';
import { Badge, ErrorNotice, Field, Loading, PageHeader, Status, TextArea, Time } from '../../components/ui';
import { parseJsonObject } from '../../lib/json';
import { formatLabels, parseLabels } from '../../lib/labels';
import { TEMPLATE, UPDATE_TEMPLATE, type TemplateView } from './queries';

export function TemplatePage() {
  const { id = '' } = useParams();
  const { data, error, loading, refetch } = useQuery(TEMPLATE, { id });
  const [update, updateState] = useMutation(UPDATE_TEMPLATE);
  const [notice, setNotice] = useState('');
  const template = data?.environmentTemplate;

  async function save(input: Record<string, unknown>, done: string) {
    if (!template) return;
    const answer = await update({ id: template.id, ifMatch: template.etag, input });
    if (answer) {
      await refetch();
      // Said once the page shows the new state (and its new ETag), so the next change starts from it.
      setNotice(done);
    }
  }

  return (
    <>
      <PageHeader title={template?.name ?? 'Environment template'} actions={<Link to="/environments">All environments</Link>}>
        {template?.description}
      </PageHeader>
      <ErrorNotice error={error} />
      {loading && !data ? <Loading /> : null}
      {template ? (
        <>
          <dl className="facts">
            <dt>Id</dt>
            <dd>
              <code>{template.id}</code>
            </dd>
            <dt>State</dt>
            <dd>
              <Badge value={template.enabled ? 'enabled' : 'disabled'} />{' '}
              <button
                type="button"
                className="secondary"
                disabled={updateState.loading}
                onClick={() => void save({ enabled: !template.enabled }, template.enabled ? 'Template disabled.' : 'Template enabled.')}
              >
                {template.enabled ? 'Disable template' : 'Enable template'}
              </button>
            </dd>
            <dt>Provider</dt>
            <dd>
              {template.provider.name} ({template.provider.type})
            </dd>
            <dt>Version</dt>
            <dd>{template.version}</dd>
            <dt>Updated</dt>
            <dd>
              <Time value={template.updatedAt} />
            </dd>
          </dl>
          {notice ? <Status>{notice}</Status> : null}
          <p>
            <Link to={`/environments?template=${template.id}`}>Create an environment from it</Link> on the environments page (a disabled
            template refuses new environments).
          </p>
          <EditTemplate
            key={template.etag}
            template={template}
            saving={updateState.loading}
            error={updateState.error}
            onSave={(input) => save(input, 'Saved.')}
          />
        </>
      ) : null}
    </>
  );
}

function EditTemplate({
  template,
  saving,
  error,
  onSave,
}: {
  template: TemplateView;
  saving: boolean;
  error: unknown;
  onSave(input: Record<string, unknown>): Promise<void>;
}) {
  const [name, setName] = useState(template.name);
  const [description, setDescription] = useState(template.description);
  const [config, setConfig] = useState(JSON.stringify(template.config, null, 2));
  const [labels, setLabels] = useState(formatLabels(template.labelList));
  const [formError, setFormError] = useState<unknown>(undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFormError(undefined);
    try {
      const input = { name, description, config: parseJsonObject(config, 'Configuration'), labels: parseLabels(labels) };
      await onSave(input);
    } catch (caught) {
      setFormError(caught);
    }
  }

  return (
    <section aria-labelledby="edit-template" className="panel infra-panel">
      <h2 id="edit-template">Edit</h2>
      <form onSubmit={submit} aria-label="Edit template">
        <Field label="Template name" required value={name} onChange={(event) => setName(event.target.value)} />
        <Field label="Description" value={description} onChange={(event) => setDescription(event.target.value)} />
        <TextArea label="Configuration (JSON)" rows={6} value={config} onChange={(event) => setConfig(event.target.value)} />
        <TextArea label="Labels" hint="One key=value a line." rows={2} value={labels} onChange={(event) => setLabels(event.target.value)} />
        <ErrorNotice error={formError ?? error} title="Could not save" />
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save changes'}
        </button>
      </form>
    </section>
  );
}
