// The plugins' tools, by `plugin_key`: the engine half of the plugin catalog (src/features/agents/documents/plugins.ts
// describes each key and validates its config). A new plugin is a catalog entry and a line here.
import { httpRequestPlugin } from './http-request.js';
import type { PluginTools } from './types.js';

export type { PluginContext, PluginInstance, PluginTools } from './types.js';

export const PLUGIN_TOOLS: Readonly<Record<string, PluginTools>> = {
  http_request: httpRequestPlugin,
};
