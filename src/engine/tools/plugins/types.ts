// What a plugin implementation is: a function from one configured instance (and the run) to tools.
import type { RunOptions } from '../../../features/agents/documents/config-schema.js';
import type { Run } from '../../../services/rows.js';
import type { CallContext } from '../../../services/call-context.js';
import type { Deps } from '../../../services/deps.js';
import type { RunTool } from '../tool.js';

export interface PluginInstance {
  plugin_key: string;
  instance_name?: string;
  config?: Record<string, unknown>;
}

/** What a plugin may read to build its tools. */
export interface PluginContext {
  deps: Deps;
  call: CallContext;
  run: Run & { options: RunOptions };
  instance: PluginInstance;
}

/** A plugin's tools for one instance; the source adds permission, namespace and `offered`. */
export type PluginTools = (context: PluginContext) => Omit<RunTool, 'permission' | 'offered' | 'namespace'>[];
