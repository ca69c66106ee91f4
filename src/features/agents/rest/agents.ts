// REST rows — Agents (a revisioned kind), their avatars, and the agent composer.
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import { ifMatch, revisionedRoutes, type Route } from '../../../../rest-shim/route-table.js';

export const agentRoutes: Route[] = [
  ...revisionedRoutes('/api/v1/agents', 'agent_id', 'Agent', 'agentId', (req) => ({
    source: req.query('source'),
    presetKind: req.query('preset_kind'),
    skillId: req.query('skill_id'),
    skillRevisionId: req.query('skill_revision_id'),
  })),
  {
    method: 'DELETE',
    path: '/api/v1/agents/:agent_id/avatar',
    operation: 'AgentAvatarDelete',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ agentId: req.path('agent_id'), ...ifMatch(req) }),
    body: 'none',
    result: 'deleteAgentAvatar.agent',
  },
  {
    method: 'PUT',
    path: '/api/v1/agents/:agent_id/avatar',
    operation: 'AgentAvatarUpload',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ agentId: req.path('agent_id'), ...ifMatch(req) }),
    rawBody: { content: 'contentBase64', mediaType: 'mediaType' },
    result: 'uploadAgentAvatar.agent',
  },
];

/** The agent composer: listed after the assets, where it has always been in the table. */
export const agentComposerRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/agent-composer',
    operation: 'AgentComposerPrepare',
    surface: 'v1',
    body: 'none',
    result: 'prepareAgentComposer.agent',
  },
];
