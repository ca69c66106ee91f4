// The permission that applies to one tool of a source. A source's configuration may carry a
// `permission` for all its tools and a `permissions` map for single tools (connection tools do;
// plugins take both in their `config`); `inherit` — or nothing — defers to the next level, and the
// last level is the agent's default.
import type { ToolPermission } from './tool.js';

/**
 * The agent's default permission for a tool that names none. The agent configuration has no member
 * for it, so it is fixed: a configured tool is allowed, as client tools always were.
 */
export const AGENT_DEFAULT_PERMISSION: ToolPermission = 'allow';

export interface PermissionSettings {
  /** For every tool of the source: `inherit`, `allow`, `ask` or `deny`. */
  permission?: string;
  /** Per tool name, overriding `permission`. */
  permissions?: Record<string, string>;
}

const concrete = (value: string | undefined): ToolPermission | null =>
  value === 'allow' || value === 'ask' || value === 'deny' ? value : null;

/** The tool's own entry, else the source's permission, else the agent's default. */
export function resolvePermission(toolName: string, settings: PermissionSettings | undefined): ToolPermission {
  return concrete(settings?.permissions?.[toolName]) ?? concrete(settings?.permission) ?? AGENT_DEFAULT_PERMISSION;
}
