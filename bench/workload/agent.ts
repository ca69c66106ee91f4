// The agent the workload benches run: an openai_compatible model on the loopback process, an MCP
// connection to its tool server, the http_request plugin and a client tool — or any of those three
// tools only (bench:starts compares what each costs a run's start).
import type { Rest } from '../blackbox/clients.js';
import type { Loopback } from './loopback.js';

export type AgentTool = 'mcp' | 'plugin' | 'client';
export const AGENT_TOOLS: readonly AgentTool[] = ['mcp', 'plugin', 'client'];

/** Creates the model, the connection and the agent; returns the agent's id. */
export async function setupLoopbackAgent(rest: Rest, loopback: Loopback, name: string, tools = AGENT_TOOLS): Promise<string> {
  const provider = await rest.ok('POST', '/api/v1/model-providers', {
    type: 'openai_compatible',
    name: `${name} loopback`,
    config: { base_url: `${loopback.url}/v1` },
    credential: { api_key: `sk-${name}-loopback` },
  });
  await rest.ok('POST', '/api/v1/models', { key: 'loop', provider_id: provider.id, provider_model: 'loop' });
  const connector = await rest.ok('POST', '/api/v1/connector-providers', {
    type: 'mcp',
    name: `${name} MCP`,
    config: { url: `${loopback.url}/mcp` },
  });
  const connection = await rest.ok('POST', '/api/v1/connections', {
    provider_id: connector.id,
    name: 'documents',
    config: { url: `${loopback.url}/mcp` },
  });
  const agent = await rest.ok('POST', '/api/v1/agents', {
    name,
    config: {
      model: 'loop',
      ...(tools.includes('mcp') ? { connection_tools: [{ connection_id: connection.id }] } : {}),
      ...(tools.includes('plugin') ? { plugins: [{ plugin_key: 'http_request', config: { methods: ['GET'] } }] } : {}),
      ...(tools.includes('client')
        ? {
            client_tools: [
              {
                name: 'confirm',
                description: 'Asks the user to confirm before going on.',
                parameters_json_schema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
              },
            ],
          }
        : {}),
    },
  });
  return agent.id;
}
