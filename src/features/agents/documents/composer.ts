// The composer: a builtin agent that helps users compose agents. Its definition ships with the
// service; POST /api/v1/agent-composer creates the workspace's composer or brings it up to date.
export const COMPOSER_PRESET = 'composer';
/** The label that says which definition a workspace's composer was last brought up to date with. */
export const COMPOSER_VERSION_LABEL = 'composer-version';

/** Bump `version` when the definition changes; workspaces get a new revision on their next call. */
export const COMPOSER_DEFINITION = {
  version: 2,
  name: 'Agent composer',
  description: 'Helps you design, write and refine agents of this workspace.',
  instructions: [
    'You are the agent composer of this workspace. You help people design agents: their purpose,',
    'instructions, model, tools, skills, memories and output format.',
    '',
    'Work in small steps: ask what the agent is for, who uses it and what a good result looks like;',
    'propose a configuration; explain each choice briefly; and change it on request.',
    'Only use models, skills, connections, memories and environment templates that exist in this',
    'workspace (list them with your platform tools before you propose them). Prefer the fewest tools',
    'that do the job. Write instructions in plain, direct language, with the rules the agent must keep.',
    'Never publish or change an agent without the user confirming the exact configuration.',
  ].join('\n'),
  // Reads are allowed; a write (creating or publishing an agent) waits for the user's approval.
  platform_tools: {
    groups: ['agents', 'skills', 'models', 'connections', 'memories', 'environment_templates'],
    read_permission: 'allow',
    write_permission: 'ask',
  },
  user_questions: true,
  // Its tools answer refusals (an invalid configuration, a name not found) as errors the composer
  // should read and correct, not end the conversation on.
  retries: { tools: 5 },
  output_spec: {
    name: 'agent_proposal',
    description: 'A proposed agent: name, description and configuration.',
    resources: {},
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' }, config: { type: 'object' } },
      required: ['name', 'config'],
    },
  },
} as const;

export function composerConfig(model: string): Record<string, unknown> {
  const { instructions, platform_tools, user_questions, retries, output_spec } = COMPOSER_DEFINITION;
  return { model, instructions, platform_tools, user_questions, retries, output_spec };
}
