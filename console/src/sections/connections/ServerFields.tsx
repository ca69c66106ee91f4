// The MCP server a connection points at (its `config`) and the write-only credential, as form fields.
// The credential fields start empty on every form: the service never answers a stored credential.
import { Field, Select, TextArea } from '../../components/ui';
import { draftBinder } from '../../lib/draft';
import { jsonObject } from '../../lib/json';

export interface ServerDraft {
  transport: 'streamable_http' | 'stdio';
  url: string;
  command: string;
  /** One argument a line. */
  args: string;
}

export interface CredentialDraft {
  bearerToken: string;
  /** `Name: value` a line. */
  headers: string;
}

export const emptyCredential: CredentialDraft = { bearerToken: '', headers: '' };

export function serverDraftFrom(value: unknown): ServerDraft {
  const config = jsonObject(value);
  const args = Array.isArray(config?.args) ? (config.args as unknown[]).map(String) : [];
  return {
    transport: config?.transport === 'stdio' ? 'stdio' : 'streamable_http',
    url: typeof config?.url === 'string' ? config.url : '',
    command: typeof config?.command === 'string' ? config.command : '',
    args: args.join('\n'),
  };
}

export function configFrom(draft: ServerDraft): Record<string, unknown> {
  if (draft.transport === 'stdio')
    return {
      transport: 'stdio',
      command: draft.command.trim(),
      args: draft.args
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    };
  return { transport: 'streamable_http', url: draft.url.trim() };
}

/** The credential document, or null when both fields are empty (nothing entered). */
export function credentialFrom(draft: CredentialDraft): Record<string, unknown> | null {
  const credential: Record<string, unknown> = {};
  if (draft.bearerToken) credential.bearer_token = draft.bearerToken;
  const headers: Record<string, string> = {};
  for (const [index, raw] of draft.headers.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(':');
    if (at <= 0) throw new Error(`Headers, line ${index + 1}: write Name: value`);
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (Object.keys(headers).length) credential.headers = headers;
  return Object.keys(credential).length ? credential : null;
}

/** The server in one line: its URL, or a stdio server's command line. */
export function serverSummary(value: unknown): string {
  const config = jsonObject(value);
  if (config.transport === 'stdio') return [config.command, ...(Array.isArray(config.args) ? config.args : [])].map(String).join(' ');
  return String(config.url ?? '');
}

export function ServerFields({ draft, onChange }: { draft: ServerDraft; onChange(draft: ServerDraft): void }) {
  const bind = draftBinder(draft, onChange);
  return (
    <>
      <Select
        label="Transport"
        value={draft.transport}
        onChange={(event) => onChange({ ...draft, transport: event.target.value as ServerDraft['transport'] })}
        options={[
          { value: 'streamable_http', label: 'Streamable HTTP (a URL)' },
          { value: 'stdio', label: 'stdio (a command on the service’s machine)' },
        ]}
      />
      {draft.transport === 'stdio' ? (
        <>
          <Field label="Command" required {...bind('command')} />
          <TextArea label="Arguments" hint="One argument a line." rows={3} {...bind('args')} />
        </>
      ) : (
        <Field label="Server URL" type="url" required hint="https://, or http:// where the deployment allows the host." {...bind('url')} />
      )}
    </>
  );
}

export function CredentialFields({ draft, onChange }: { draft: CredentialDraft; onChange(draft: CredentialDraft): void }) {
  const bind = draftBinder(draft, onChange);
  return (
    <>
      <Field
        label="Bearer token"
        type="password"
        autoComplete="off"
        hint="Write-only: sent as Authorization: Bearer …, never shown again."
        {...bind('bearerToken')}
      />
      <TextArea label="Credential headers" hint="Write-only. One “Name: value” a line." rows={2} autoComplete="off" {...bind('headers')} />
    </>
  );
}
