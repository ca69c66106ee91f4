// What a workspace platform tool is (docs/api/tools.md, "Workspace groups"): a read or a write of the
// workspace's own resources, carried out through the service layer with the run's call context, so
// the services' permission checks, tenancy (another workspace's id is not found), validation and
// audit rows apply exactly as they do to the API.
import Type, { type Static, type TObject, type TProperties } from 'typebox';
import type { WorkspaceToolGroup } from '../../../features/agents/documents/platform-tool-groups.js';
import type { CallContext } from '../../../services/call-context.js';
import type { Page } from '../../../lib/cursor.js';

export interface WorkspaceToolDefinition<S extends TObject = TObject> {
  name: string;
  group: WorkspaceToolGroup;
  /** Writes take `write_permission`, reads `read_permission`. */
  write: boolean;
  description: string;
  /** The arguments, defined once: the JSON Schema the model is offered and calls are checked against, and `execute`'s type. */
  inputSchema: S;
  /**
   * Carries out a call whose arguments passed the check against `inputSchema`. A method (not a
   * function member), so a definition of any schema is one of the list's.
   */
  execute(call: CallContext, args: Static<S>): Promise<unknown>;
}

/** A tool's definition, its `execute` arguments typed by its own schema. */
export const workspaceTool = <S extends TObject>(definition: WorkspaceToolDefinition<S>): WorkspaceToolDefinition<S> => definition;

/** The largest page a list tool returns: a model reads every row, so pages stay small. */
export const LIST_MAX_LIMIT = 50;
export const LIST_DEFAULT_LIMIT = 20;

/** A tool's arguments: these members (the ones not `Type.Optional` required) and no others. */
export const objectSchema = <P extends TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });

/** The paging and search members every list tool takes. */
const LIST_PROPERTIES = {
  q: Type.Optional(Type.String({ description: 'Only rows whose name or description contains this text (any case).' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, description: `At most this many rows (default ${LIST_DEFAULT_LIMIT}).` }),
  ),
  cursor: Type.Optional(Type.String({ description: 'The `next_cursor` of the previous page, for the next one.' })),
};

/** A list tool's arguments: paging and search, and the tool's own filters. */
export const listSchema = <P extends TProperties>(filters: P) => objectSchema({ ...LIST_PROPERTIES, ...filters });

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
