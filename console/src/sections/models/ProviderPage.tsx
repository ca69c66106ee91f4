// /models/providers/:id: one model provider — its details, a live Test (the type's probe), enable or
// disable in one click, and the edit form (a new credential or a new set of extra headers replaces the
// stored one, which is never shown; every change names the ETag the page was read at, and a change
// someone made meanwhile is explained with a reload).
import {
  ConsoleModelProviderDocument,
  ConsoleModelProviderTypesDocument,
  ConsoleTestModelProviderDocument,
  ConsoleUpdateModelProviderDocument,
} from '../../../generated/graphql';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery } from '../../api';
import { TestPanel } from '../../components/TestPanel';
import { DetailNotice, DetailPage, useDetailQuery, useVersionedMutation, type Detail } from '../../components/DetailPage';
import { ChangedBy, Facts } from '../../components/Facts';
import { ConfigField, EditPanel, useEditForm } from '../../components/Forms';
import { Badge, EnabledStatePanel, Field, JsonView, LabelsField } from '../../components/ui';
import type { UpdateProviderInput } from '../../../generated/graphql';
import { CredentialChoiceSelect, credentialChange, type CredentialChoice } from '../../components/CredentialChoice';
import { formatLabels, parseLabels } from '../../lib/labels';
import { parseJsonObject } from '../../lib/json';
import { ProviderTypeDescription } from './ModelsPage';
import { type ProviderTypeView, type ProviderView } from './queries';
import { credentialFrom, SecretFields, type SecretDraft } from './SecretFields';
import { ExtraHeadersChoiceSelect, extraHeadersChange, HeaderRows, newHeaderRow, type HeaderRow } from './ExtraHeaders';

export function ProviderPage() {
  const { id = '' } = useParams();
  const detail = useDetailQuery(ConsoleModelProviderDocument, { id }, (data) => data.provider);
  const types = useQuery(ConsoleModelProviderTypesDocument, {});
  const [update, updateState, reload] = useVersionedMutation(ConsoleUpdateModelProviderDocument, detail);
  const provider = detail.item;
  const type = types.data?.providerTypes.find((entry) => entry.type === provider?.type);

  return (
    <DetailPage
      detail={detail}
      title={provider?.name ?? 'Model provider'}
      description={provider?.description}
      back={{ to: '/models', label: 'All models' }}
    >
      {(provider) => (
        <>
          <Facts
            facts={[
              ['Id', <code>{provider.id}</code>],
              [
                'Type',
                <>
                  {type?.title ?? provider.type} (<code>{provider.type}</code>)
                </>,
              ],
              ['State', <Badge value={provider.enabled ? 'enabled' : 'disabled'} />],
              ['Credential', provider.credentialConfigured ? 'stored (never shown)' : 'none'],
              ['Extra headers', provider.extraHeadersConfigured ? 'stored (never shown)' : 'none'],
              ['Version', provider.version],
              ['Updated', <ChangedBy at={provider.updatedAt} by={provider.updatedById} />],
            ]}
          />
          <JsonView value={provider.config} label="Configuration" />
          <DetailNotice detail={detail} />
          <EnabledStatePanel
            what="provider"
            enabled={provider.enabled}
            explanation="A disabled provider refuses tests and new runs of its models."
            state={updateState}
            onReload={reload}
            setEnabled={(enabled, notice) => update({ id: provider.id, input: { enabled } }, notice)}
          />
          <TestProvider id={provider.id} type={type} />
          <EditProvider key={provider.etag} provider={provider} type={type} detail={detail} onReload={reload} />
        </>
      )}
    </DetailPage>
  );
}

function TestProvider({ id, type }: { id: string; type: ProviderTypeView | undefined }) {
  return (
    <TestPanel
      document={ConsoleTestModelProviderDocument}
      variables={{ id }}
      outcomeOf={(data) => data.testProvider}
      buttonLabel="Test provider"
      explanation={
        type && !type.testSupported
          ? 'This type has no probe: the test answers “unsupported” and the first run proves the credential.'
          : 'One inexpensive request to the service with the stored credential (usually its model list).'
      }
      describe={(outcome) => (
        <>
          Test {outcome.status}
          {outcome.message ? `: ${outcome.message}` : '.'}
        </>
      )}
    />
  );
}

function EditProvider({
  provider,
  type,
  detail,
  onReload,
}: {
  provider: ProviderView;
  type: ProviderTypeView | undefined;
  detail: Detail<ProviderView>;
  onReload(): void;
}) {
  const [name, setName] = useState(provider.name);
  const [description, setDescription] = useState(provider.description);
  const [config, setConfig] = useState(JSON.stringify(provider.config, null, 2));
  const [labels, setLabels] = useState(formatLabels(provider.labelList));
  const [choice, setChoice] = useState<CredentialChoice>('keep');
  const [secret, setSecret] = useState<SecretDraft>({});
  const [headersChoice, setHeadersChoice] = useState<CredentialChoice>('keep');
  const [headerRows, setHeaderRows] = useState<HeaderRow[]>([]);

  const form = useEditForm(ConsoleUpdateModelProviderDocument, detail, { id: provider.id }, () => {
    const parsed = parseJsonObject(config, 'Configuration');
    const input: UpdateProviderInput = { name, description, labels: parseLabels(labels) };
    // Config is sent only when it changed: the service then asks for the credential to be replaced or removed too.
    if (JSON.stringify(parsed) !== JSON.stringify(provider.config)) input.config = parsed;
    Object.assign(
      input,
      credentialChange(choice, choice === 'replace' ? credentialFrom(secret) : null, 'Enter the new credential, or keep the stored one.'),
      extraHeadersChange(headersChoice, headerRows),
    );
    return input;
  });

  return (
    <EditPanel what="provider" intro={type ? <ProviderTypeDescription type={type} /> : null} form={form} withField onReload={onReload}>
      <Field label="Name" required value={name} onValue={setName} />
      <Field label="Description" value={description} onValue={setDescription} />
      <ConfigField
        hint="Changing it while a credential or extra headers are stored needs each of them replaced or removed in the same save."
        value={config}
        onValue={setConfig}
      />
      <CredentialChoiceSelect stored={provider.credentialConfigured} value={choice} onChange={setChoice} />
      {choice === 'replace' && type ? <SecretFields schema={type.credentialSchema} draft={secret} onChange={setSecret} /> : null}
      <ExtraHeadersChoiceSelect
        stored={provider.extraHeadersConfigured}
        value={headersChoice}
        onChange={(next) => {
          setHeadersChoice(next);
          // Replacing starts with one empty row to fill.
          if (next === 'replace' && !headerRows.length) setHeaderRows([newHeaderRow()]);
        }}
      />
      {headersChoice === 'replace' ? (
        <HeaderRows legend="New extra headers (the whole set; values never shown back)" rows={headerRows} onChange={setHeaderRows} />
      ) : null}
      <LabelsField value={labels} onChange={setLabels} />
    </EditPanel>
  );
}
