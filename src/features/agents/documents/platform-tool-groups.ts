// The groups `platform_tools.groups` may name (docs/api/tools.md, "Platform tools"). Environment
// groups work in the run's mounted environment and are offered only when the run has one; workspace
// groups read (and write) the workspace's own resources through the service layer and need no
// environment. Shared by the configuration schema (which refuses any other name) and the engine.
export const ENVIRONMENT_TOOL_GROUPS = ['shell', 'files', 'search'] as const;
export const WORKSPACE_TOOL_GROUPS = ['agents', 'skills', 'models', 'connections', 'memories', 'environment_templates'] as const;
export const PLATFORM_TOOL_GROUPS = [...ENVIRONMENT_TOOL_GROUPS, ...WORKSPACE_TOOL_GROUPS] as const;

export type EnvironmentToolGroup = (typeof ENVIRONMENT_TOOL_GROUPS)[number];
export type WorkspaceToolGroup = (typeof WORKSPACE_TOOL_GROUPS)[number];
