// /environments: the workspace's environment templates (how to make an environment) and its
// environments (made from them), each with the form that creates one.
import {
  ConsoleCreateEnvironmentDocument,
  ConsoleCreateEnvironmentTemplateDocument,
  ConsoleEnvironmentProvidersDocument,
  ConsoleEnvironmentTemplatesDocument,
  ConsoleEnvironmentsDocument,
} from '../../../generated/graphql';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useQuery } from '../../api';
import { Badge, ErrorNotice, Field, JsonView, LabelsField, PageHeader, RefreshButton, Select, Time } from '../../components/ui';
import { ConfigField, CreatePanel, useCreateForm } from '../../components/Forms';
import { ProviderSelect } from '../../components/ProviderFilters';
import { PagedTable, type Column } from '../../components/PagedTable';
import { usePagedQuery } from '../../lib/usePagedQuery';
import { useUrlFilters } from '../../lib/useUrlFilters';
import { parseJsonObject } from '../../lib/json';
import { labelWords, parseLabels } from '../../lib/labels';
import { ENVIRONMENT_STATUSES, type EnvironmentStatus, type EnvironmentView, type TemplateView } from './queries';

const PAGE = 50;

export function EnvironmentsPage() {
  const templates = usePagedQuery(ConsoleEnvironmentTemplatesDocument, { first: 100 }, (data) => data.environmentTemplates);
  return (
    <>
      <PageHeader title="Environments">Where runs' tools run commands and keep files, and the templates they are made from.</PageHeader>
      <EnvironmentList templates={templates.nodes} />
      <section aria-labelledby="templates-heading">
        <h2 id="templates-heading">Templates</h2>
        <PagedTable list={templates} columns={TEMPLATE_COLUMNS} empty="No templates yet." label="Environment templates" />
      </section>
      <CreateTemplate onCreated={() => void templates.refetch()} />
    </>
  );
}

const TEMPLATE_COLUMNS: Column<TemplateView>[] = [
  { name: 'Name', cell: (template) => <Link to={`/environments/templates/${template.id}`}>{template.name}</Link> },
  {
    name: 'Provider',
    cell: (template) => (
      <>
        {template.provider.name} <span className="muted">({template.provider.type})</span>
      </>
    ),
  },
  { name: 'State', cell: (template) => <Badge value={template.enabled ? 'enabled' : 'disabled'} /> },
  { name: 'Labels', cell: (template) => labelWords(template.labelList) },
  { name: 'Updated', cell: (template) => <Time value={template.updatedAt} /> },
];

function EnvironmentList({ templates }: { templates: TemplateView[] }) {
  const { filter, setFilter } = useUrlFilters();
  const status = filter('status') as EnvironmentStatus | '';
  const variables = { first: PAGE, ...(status ? { status } : {}) };
  const list = usePagedQuery(ConsoleEnvironmentsDocument, variables, (data) => data.environments);
  return (
    <>
      <section aria-labelledby="environments-heading">
        <h2 id="environments-heading">Environments</h2>
        <form className="filters" role="search" aria-label="Filter environments" onSubmit={(event) => event.preventDefault()}>
          <Select
            label="Status"
            value={status}
            onChange={(event) => setFilter('status', event.target.value)}
            options={[{ value: '', label: 'Any' }, ...ENVIRONMENT_STATUSES.map((value) => ({ value, label: value }))]}
          />
          <RefreshButton onRefresh={list.refetch} busy={list.loading} />
        </form>
        <PagedTable
          list={list}
          columns={ENVIRONMENT_COLUMNS}
          empty={<>No environments{status ? ` are ${status}` : ''}.</>}
          label="Environments"
        />
      </section>
      <CreateEnvironment templates={templates.filter((template) => template.enabled)} initialTemplateId={filter('template')} />
    </>
  );
}

const ENVIRONMENT_COLUMNS: Column<EnvironmentView>[] = [
  { name: 'Name', cell: (environment) => <Link to={`/environments/${environment.id}`}>{environment.name}</Link> },
  { name: 'Status', cell: (environment) => <Badge value={environment.status} /> },
  {
    name: 'Template',
    cell: (environment) =>
      environment.template ? <Link to={`/environments/templates/${environment.template.id}`}>{environment.template.name}</Link> : '—',
  },
  {
    name: 'Provider',
    cell: (environment) => (
      <>
        {environment.provider.name} <span className="muted">({environment.provider.type})</span>
      </>
    ),
  },
  { name: 'Created', cell: (environment) => <Time value={environment.createdAt} /> },
];

function CreateEnvironment({ templates, initialTemplateId }: { templates: TemplateView[]; initialTemplateId: string }) {
  const navigate = useNavigate();
  // A template page links here with ?template=… to preselect it.
  const [templateId, setTemplateId] = useState(initialTemplateId);
  const [name, setName] = useState('');
  const [labels, setLabels] = useState('');
  const chosen = templates.some((template) => template.id === templateId) ? templateId : (templates[0]?.id ?? '');

  const form = useCreateForm(
    ConsoleCreateEnvironmentDocument,
    () => ({ templateId: chosen, ...(name.trim() ? { name: name.trim() } : {}), labels: parseLabels(labels) }),
    // Creating provisions at once: the environment page shows it ready, or failed with the reason.
    (data) => navigate(`/environments/${data.createEnvironment.environment.id}`),
  );

  return (
    <CreatePanel
      title="New environment"
      className="panel infra-panel"
      missing={templates.length === 0 && 'No enabled template: create one below first.'}
      form={form}
      errorTitle="Could not create the environment"
      busyLabel="Provisioning…"
      submitLabel="Create environment"
    >
      <Select
        label="Template"
        value={chosen}
        onValue={setTemplateId}
        options={templates.map((template) => ({ value: template.id, label: template.name }))}
      />
      <Field label="Environment name" hint="Default: the template's name." value={name} onValue={setName} />
      <LabelsField value={labels} onChange={setLabels} />
    </CreatePanel>
  );
}

function CreateTemplate({ onCreated }: { onCreated(): void }) {
  const navigate = useNavigate();
  const providers = useQuery(ConsoleEnvironmentProvidersDocument, {});
  const [providerId, setProviderId] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [config, setConfig] = useState('{}');
  const [labels, setLabels] = useState('');
  const choices = providers.data?.providers.nodes ?? [];
  const chosen = choices.find((provider) => provider.id === providerId) ?? choices[0];
  const chosenType = providers.data?.providerTypes.find((type) => type.type === chosen?.type);
  // Only environment provider types describe an environment schema.
  const schema = chosenType && 'environmentSchema' in chosenType ? chosenType.environmentSchema : undefined;

  const form = useCreateForm(
    ConsoleCreateEnvironmentTemplateDocument,
    () => ({
      providerId: chosen?.id,
      name,
      description,
      config: parseJsonObject(config, 'Configuration'),
      labels: parseLabels(labels),
    }),
    (data) => {
      onCreated();
      navigate(`/environments/templates/${data.createEnvironmentTemplate.environmentTemplate.id}`);
    },
  );

  return (
    <CreatePanel
      title="New template"
      className="panel infra-panel"
      intro={<ErrorNotice error={providers.error} />}
      missing={
        providers.data && choices.length === 0 && 'The workspace has no environment provider yet: add one before creating templates.'
      }
      ready={choices.length > 0}
      form={form}
      errorTitle="Could not create the template"
      submitLabel="Create template"
    >
      <ProviderSelect label="Environment provider" value={chosen?.id ?? ''} onValue={setProviderId} providers={choices} />
      <Field label="Template name" required value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <ConfigField hint="What the provider type's environment schema describes." value={config} onValue={setConfig} />
      {schema ? (
        <details>
          <summary>Environment schema of the {chosen?.type} type</summary>
          <JsonView value={schema} label="Environment schema" />
        </details>
      ) : null}
      <LabelsField value={labels} onChange={setLabels} />
    </CreatePanel>
  );
}
