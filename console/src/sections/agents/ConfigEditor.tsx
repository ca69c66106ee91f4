// The configuration as a JSON document the user edits. It must parse as a JSON object before it is
// sent; what the service then refuses (an unknown member, a model that does not exist) is shown by the
// form that sends it, with the member the service names.
import { ConsoleAgentModelKeysDocument } from '../../../generated/graphql';
import { useQuery } from '../../api';
import { Problem, TextArea } from '../../components/ui';
import { readJsonObject } from '../../lib/json';

export function parseConfig(text: string): { config: Record<string, unknown> } | { error: string } {
  const { value, problem } = readJsonObject(text, 'Configuration');
  if (problem) return { error: problem };
  if (!value) return { error: 'Configuration must be a JSON object.' };
  return { config: value };
}

export function ConfigEditor({
  label = 'Configuration (JSON)',
  value,
  onChange,
  problem,
  autoFocus,
}: {
  label?: string;
  autoFocus?: boolean;
  value: string;
  onChange(text: string): void;
  /** The local parse problem, shown once the user tried to send. */
  problem?: string;
}) {
  return (
    <>
      <TextArea
        label={label}
        hint='The agent configuration as JSON, e.g. {"model": "…", "instructions": "…"}; "model" is required.'
        value={value}
        onValue={onChange}
        rows={Math.min(30, Math.max(8, value.split('\n').length + 1))}
        spellCheck={false}
        autoFocus={autoFocus}
        className="code-editor"
        aria-invalid={problem ? true : undefined}
      />
      <ModelKeys />
      <Problem>{problem}</Problem>
    </>
  );
}

/** The workspace's enabled model keys: what `model` may name. Quiet when they cannot be read. */
function ModelKeys() {
  const { data } = useQuery(ConsoleAgentModelKeysDocument, { first: 50 });
  if (!data) return null;
  const keys = data.models.nodes.map((model) => model.key);
  return (
    <p className="muted model-keys">
      {keys.length ? (
        <>
          Model keys in this workspace:{' '}
          {keys.map((key, index) => (
            <span key={key}>
              {index ? ', ' : ''}
              <code>{key}</code>
            </span>
          ))}
          {data.models.pageInfo.hasNextPage ? ', …' : ''}
        </>
      ) : (
        'This workspace has no enabled model yet; add one before creating an agent.'
      )}
    </p>
  );
}
