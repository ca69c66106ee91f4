// The permission values of the agent configuration (spec shows the sample `inherit`; the set is fixed
// in docs/api/agents.md): shared by the configuration schema and the plugin catalog.
export const PERMISSIONS = ['inherit', 'allow', 'ask', 'deny'] as const;
