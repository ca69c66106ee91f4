// Client tools (`client_tools` of the agent configuration): the model calls them, the client carries
// them out. A call makes the run wait (`client_tool`, or `approval` first when the tool's permission
// is `ask`); the client's result starts the successor run.
import { resolvePermission } from './permissions.js';
import type { ToolSource } from './tool.js';

const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

export const clientTools: ToolSource = ({ config }) =>
  (config.client_tools ?? []).map((client) => ({
    name: client.name,
    description: [client.description, client.instruction].filter(Boolean).join('\n\n') || client.name,
    inputSchema: client.parameters_json_schema ?? EMPTY_OBJECT_SCHEMA,
    // `inherit` is the agent's default: the call is handed over (allow).
    permission: resolvePermission(client.name, { permission: client.permission }),
    namespace: 'client',
    offered: true,
    execution: { kind: 'client', title: client.description ?? client.name },
  }));
