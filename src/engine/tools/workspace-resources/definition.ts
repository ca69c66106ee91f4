// What a workspace platform tool is (docs/api/tools.md, "Workspace groups"): a read or a write of the
// workspace's own resources, carried out through the service layer with the run's call context, so
// the services' permission checks, tenancy (another workspace's id is not found), validation and
// audit rows apply exactly as they do to the API.
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { WorkspaceToolGroup } from '../../../features/agents/documents/platform-tool-groups.js';
import type { CallContext } from '../../../services/call-context.js';
import type { Page } from '../../../lib/cursor.js';

export interface WorkspaceToolDefinition {
  name: string;
  group: WorkspaceToolGroup;
  /** Writes take `write_permission`, reads `read_permission`. */
  write: boolean;
  description: string;
  inputSchema: JSONSchema7;
  execute(call: CallContext, args: Record<string, unknown>): Promise<unknown>;
}

/** The largest page a list tool returns: a model reads every row, so pages stay small. */
export const LIST_MAX_LIMIT = 50;
export const LIST_DEFAULT_LIMIT = 20;

export const objectSchema = (properties: Record<string, JSONSchema7>, required: string[] = []): JSONSchema7 => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** The paging and search members every list tool takes. */
export const LIST_PROPERTIES: Record<string, JSONSchema7> = {
  q: { type: 'string', description: 'Only rows whose name or description contains this text (any case).' },
  limit: { type: 'integer', minimum: 1, maximum: LIST_MAX_LIMIT, description: `At most this many rows (default ${LIST_DEFAULT_LIMIT}).` },
  cursor: { type: 'string', description: 'The `next_cursor` of the previous page, for the next one.' },
};

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const limitOf = (value: unknown): number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, LIST_MAX_LIMIT) : LIST_DEFAULT_LIMIT;

/** The service list arguments from a list tool's arguments. */
export const listArgs = (args: Record<string, unknown>) => ({ q: str(args.q), limit: limitOf(args.limit), cursor: str(args.cursor) });

/** A page as a tool answers it: its rows under `key` and the cursor of the next page (null at the end). */
export function pageResult<T, U>(key: string, page: Page<T>, view: (row: T) => U): Record<string, unknown> {
  return { [key]: page.items.map(view), next_cursor: page.nextCursor };
}

/** A required id argument: a clear message to the model when it is missing. */
export function idArg(args: Record<string, unknown>, field: string): string {
  const value = args[field];
  if (typeof value !== 'string' || value === '') throw new Error(`invalid_argument: ${field} is required`);
  return value;
}

export const optionalBoolean = (value: unknown): boolean | null => (typeof value === 'boolean' ? value : null);
