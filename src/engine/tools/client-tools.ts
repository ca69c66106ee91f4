// Client tools (`client_tools` of the agent configuration): the model calls them, the client carries
// them out. A call makes the run wait (`client_tool`, or `approval` first when the tool's permission
// is `ask`); the client's result starts the successor run.
import type { ToolPermission, ToolSource } from './tool.js';

const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

/** `inherit` is the agent's default, which for client tools is to hand the call over (allow). */
const permissionOf = (permission: string | undefined): ToolPermission =>
  permission === 'ask' || permission === 'deny' ? permission : 'allow';

export const clientTools: ToolSource = ({ config }) =>
  (config.client_tools ?? []).map((client) => ({
    name: client.name,
    description: [client.description, client.instruction].filter(Boolean).join('\n\n') || client.name,
    inputSchema: client.parameters_json_schema ?? EMPTY_OBJECT_SCHEMA,
    permission: permissionOf(client.permission),
    offered: true,
    execution: { kind: 'client', title: client.description ?? client.name },
  }));
