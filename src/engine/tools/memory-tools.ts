// The tools of a run's memory mounts, carried out by the server: `search_memory_<name>` for every
// mount, `add_memory_<name>` and `replace_memory_<name>` for `write` mounts. Writes carry the run's
// provenance (run, attempt, tool call). A read-only mount's write tools are not offered, but a call
// to one is answered that the memory is read-only.
import Type, { type Static } from 'typebox';
import { searchRecords, writeRecord } from '../../features/memories/memories.js';
import { checkedExecution, toolInputSchema, type RunTool, type ToolSource } from './tool.js';

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 40) || 'memory';

const SEARCH_SCHEMA = Type.Object({ query: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })) });
const ADD_SCHEMA = Type.Object({ text: Type.String() });
const REPLACE_SCHEMA = Type.Object({ record_id: Type.String(), text: Type.String() });
/** What both write tools take: the record's text, and the record a replacement replaces. */
type WriteArgs = Static<typeof ADD_SCHEMA> & Partial<Static<typeof REPLACE_SCHEMA>>;

export const memoryTools: ToolSource = ({ call, run, mounts }) => {
  const writer = (toolCallId: string) => ({ principalId: run.principalId, runId: run.id, attemptId: run.currentAttemptId, toolCallId });
  return mounts.flatMap((mount): RunTool[] => {
    const name = slug(mount.name);
    const writable = mount.access === 'write';
    const readOnly = async () => {
      throw new Error(`the memory "${mount.name}" is mounted read-only`);
    };
    /** A tool that writes a record (`recordId`: the record it replaces, null for a new one); answers read-only on a read mount. */
    const writeTool = (
      toolName: string,
      description: string,
      inputSchema: typeof ADD_SCHEMA | typeof REPLACE_SCHEMA,
      recordId: (args: WriteArgs) => string | null,
    ): RunTool => ({
      name: toolName,
      description,
      inputSchema: toolInputSchema(inputSchema),
      permission: 'allow',
      namespace: `memory_${name}`,
      offered: writable,
      execution: writable
        ? checkedExecution(inputSchema, async (args: WriteArgs, toolCall) => ({
            id: (await writeRecord(call, mount.memory_id, recordId(args), args.text, writer(toolCall.toolCallId))).id,
          }))
        : { kind: 'server', execute: readOnly },
    });
    return [
      {
        name: `search_memory_${name}`,
        description: `Search the memory "${mount.name}" for records similar to a query.`,
        inputSchema: toolInputSchema(SEARCH_SCHEMA),
        permission: 'allow',
        namespace: `memory_${name}`,
        offered: true,
        execution: checkedExecution(SEARCH_SCHEMA, async (args) =>
          (await searchRecords(call, mount.memory_id, { query: args.query, limit: args.limit ?? 5 })).map((r) => ({
            id: r.id,
            text: r.text,
            score: r.score,
          })),
        ),
      },
      writeTool(`add_memory_${name}`, `Add a record to the memory "${mount.name}".`, ADD_SCHEMA, () => null),
      writeTool(`replace_memory_${name}`, `Replace the text of a record of the memory "${mount.name}".`, REPLACE_SCHEMA, (args) =>
        String(args.record_id ?? ''),
      ),
    ];
  });
};
