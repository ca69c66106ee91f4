// The tools of the agent's `plugins`: each instance's tools, with the permission its config names
// (`permission` for all its tools, `permissions` per tool; `inherit` → the agent's default) and the
// instance's name as namespace (two instances of one plugin are told apart as `<instance>__<tool>`).
import type { RunOptions } from '../../features/agents/documents/config-schema.js';
import { PluginPermissionSettings } from '../../features/agents/documents/plugins.js';
import { readDocument } from '../../lib/json-documents.js';
import { resolvePermission } from './permissions.js';
import { PLUGIN_TOOLS } from './plugins/registry.js';
import type { RunTool, ToolSource } from './tool.js';

export const pluginTools: ToolSource = ({ deps, call, run, config }) =>
  (config.plugins ?? []).flatMap((instance): RunTool[] => {
    // Configurations are validated against the catalog when written; a key unknown here has no tools.
    const build = PLUGIN_TOOLS[instance.plugin_key];
    if (!build) return [];
    // Checked against the catalog when the configuration was written; read through the same schema.
    const settings = readDocument(PluginPermissionSettings, instance.config ?? {}, 'agent configuration plugins[].config');
    return build({ deps, call, run: run as typeof run & { options: RunOptions }, instance }).map((runTool) => ({
      ...runTool,
      namespace: instance.instance_name || instance.plugin_key,
      permission: resolvePermission(runTool.name, settings),
      offered: true,
    }));
  });
