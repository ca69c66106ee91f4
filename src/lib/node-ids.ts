// Relay global ids. Every stored id is already `<prefix>_<ULID>` (src/lib/ids.ts): unique across
// every kind and every workspace, and its prefix names its kind. So a node's global id *is* its id,
// unchanged — the same string the REST API and every `…Id` field carry — and `node(id)` learns the
// type from the prefix. Only models have no id (their key is unique in a workspace only): their
// global id is `mdl_<workspaceId>:<key>`, unique everywhere like the others.
import { ID_PREFIX } from './ids.js';

/** The GraphQL node types by the prefix of their ids. */
export const NODE_TYPE_BY_PREFIX = {
  [ID_PREFIX.run]: 'Run',
  [ID_PREFIX.runItem]: 'RunItem',
  [ID_PREFIX.thread]: 'Thread',
  [ID_PREFIX.session]: 'Session',
  [ID_PREFIX.inboxEntry]: 'InboxEntry',
  [ID_PREFIX.agent]: 'Agent',
  [ID_PREFIX.agentRevision]: 'AgentRevision',
  [ID_PREFIX.skill]: 'Skill',
  [ID_PREFIX.skillRevision]: 'SkillRevision',
  [ID_PREFIX.provider]: 'Provider',
  [ID_PREFIX.connection]: 'Connection',
  [ID_PREFIX.memory]: 'Memory',
  [ID_PREFIX.environmentTemplate]: 'EnvironmentTemplate',
  [ID_PREFIX.environment]: 'Environment',
  [ID_PREFIX.asset]: 'Asset',
  [ID_PREFIX.finding]: 'Finding',
  [ID_PREFIX.findingAnalysis]: 'FindingAnalysis',
} as const;

export type NodeTypename = (typeof NODE_TYPE_BY_PREFIX)[keyof typeof NODE_TYPE_BY_PREFIX] | 'Model';

/** The prefix of model global ids (no stored id carries it). */
export const MODEL_NODE_PREFIX = 'mdl';

const STORED_ID = /^([a-z]{3})_[0-9A-HJKMNP-TV-Z]{26}$/;
// A workspace id, then a model key (src/services/models.ts: 1–128 of a-z, 0-9, `.` and `-`).
const MODEL_ID = /^mdl_(wsp_[0-9A-HJKMNP-TV-Z]{26}):([a-z0-9][a-z0-9.-]{0,127})$/;

/** The global id of the model `key` of `workspaceId`. */
export function modelNodeId(workspaceId: string, key: string): string {
  return `${MODEL_NODE_PREFIX}_${workspaceId}:${key}`;
}

/** The workspace and key a model global id names, or null when it is not one. */
export function parseModelNodeId(globalId: string): { workspaceId: string; key: string } | null {
  const match = MODEL_ID.exec(globalId);
  return match ? { workspaceId: match[1]!, key: match[2]! } : null;
}

/**
 * The node type a global id names, with the id itself (what the type's loader takes), or null for
 * anything that is not the id of a node type: malformed, another kind's id (a workspace, an API
 * key), or too long to be an id at all.
 */
export function parseNodeId(globalId: string): { typename: NodeTypename; id: string } | null {
  if (globalId.length > 300) return null;
  const stored = STORED_ID.exec(globalId);
  if (stored) {
    const typename = (NODE_TYPE_BY_PREFIX as Record<string, NodeTypename | undefined>)[stored[1]!];
    return typename ? { typename, id: globalId } : null;
  }
  return parseModelNodeId(globalId) ? { typename: 'Model', id: globalId } : null;
}
