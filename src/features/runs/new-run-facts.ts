// What a new run on a new thread needs to know about its agent, revision, model and provider (and
// the session it names), in one joined read remembered per configuration generation: the first of
// the hot path's round trips (the plan's one-statement write is the second).
import { configGeneration, GenerationCache } from '../../services/config-cache.js';
import type { CallContext } from '../../services/call-context.js';

export interface NewRunFacts {
  agentId: string | null;
  agentArchived: boolean;
  revisionId: string | null;
  revisionConfig: Record<string, unknown> | null;
  modelFound: boolean;
  modelEnabled: boolean;
  providerEnabled: boolean;
  sessionFound: boolean;
}

/**
 * One read: the agent (in the caller's workspace), the revision a new run would pin (the named one
 * or the default), its model and the model's provider, and — when named — the session.
 */
const factsCache = new GenerationCache<NewRunFacts>(2_000);

export async function newRunFacts(
  call: CallContext,
  agentId: string,
  revisionId: string | null,
  sessionId: string | null,
): Promise<NewRunFacts> {
  const { actor } = call;
  // Without a session to check, the facts are configuration only: remembered until it changes.
  const cacheKey = sessionId === null ? `${actor.workspaceId}\n${agentId}\n${revisionId ?? ''}` : null;
  const cached = cacheKey ? factsCache.get(cacheKey) : undefined;
  if (cached) return cached;
  const readGeneration = configGeneration();
  const rows = await call.db.$queryRaw<
    {
      agent_id: string | null;
      archived: boolean | null;
      revision_id: string | null;
      config: Record<string, unknown> | null;
      model_key: string | null;
      model_enabled: boolean | null;
      provider_enabled: boolean | null;
      session_found: boolean;
    }[]
  >`
    SELECT a.id AS agent_id, a.archived_at IS NOT NULL AS archived, r.id AS revision_id, r.config, m.key AS model_key, m.enabled AS model_enabled, p.enabled AS provider_enabled,
      (${sessionId}::text IS NULL OR EXISTS (SELECT 1 FROM sessions s WHERE s.id = ${sessionId} AND s.workspace_id = ${actor.workspaceId})) AS session_found
    FROM (SELECT 1) one
    LEFT JOIN agents a ON a.id = ${agentId} AND a.workspace_id = ${actor.workspaceId}
    LEFT JOIN agent_revisions r ON r.id = coalesce(${revisionId}::text, a.default_revision_id) AND r.agent_id = a.id
    LEFT JOIN models m ON m.workspace_id = ${actor.workspaceId} AND m.key = r.config->>'model'
    LEFT JOIN providers p ON p.id = m.provider_id`;
  const row = rows[0]!;
  const facts = {
    agentId: row.agent_id,
    agentArchived: Boolean(row.archived),
    revisionId: row.revision_id,
    revisionConfig: row.config,
    modelFound: row.model_key !== null,
    modelEnabled: Boolean(row.model_enabled),
    providerEnabled: Boolean(row.provider_enabled),
    sessionFound: row.session_found,
  };
  if (cacheKey) factsCache.set(cacheKey, facts, readGeneration);
  return facts;
}
