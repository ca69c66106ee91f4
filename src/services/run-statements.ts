// The statements of the run hot path, each one round trip: what a new run needs to know about its
// agent, revision, model and provider (one joined read), and everything a new run creates —
// session, thread, inbox entry, run, audit rows and the workers' wake-up — in one atomic
// multi-CTE insert. Services own the rules; these functions only speak SQL.
import { Prisma } from '../generated/prisma/client.js';
import type { Run } from '../generated/prisma/client.js';
import type { RunOptions } from '../agents/config-schema.js';
import { digestOf } from '../lib/canonical-json.js';
import { newId } from '../lib/ids.js';
import { RUN_COLUMNS } from '../storage/columns.js';
import { configGeneration, GenerationCache } from './config-cache.js';
import { AUDIT_COLUMNS, auditValues } from './audit.js';
import type { Actor, Deps } from './deps.js';
import type { MessageContent } from './runs.js';

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
 * One read: the agent (in the actor's workspace), the revision a new run would pin (the named one
 * or the default), its model and the model's provider, and — when named — the session.
 */
const factsCache = new GenerationCache<NewRunFacts>(2_000);

export async function newRunFacts(db: Deps['db'], actor: Actor, agentId: string, revisionId: string | null, sessionId: string | null): Promise<NewRunFacts> {
  // Without a session to check, the facts are configuration only: remembered until it changes.
  const cacheKey = sessionId === null ? `${actor.workspaceId}\n${agentId}\n${revisionId ?? ''}` : null;
  const cached = cacheKey ? factsCache.get(cacheKey) : undefined;
  if (cached) return cached;
  const readGeneration = configGeneration();
  const rows = await db.$queryRaw<{ agent_id: string | null; archived: boolean | null; revision_id: string | null; config: Record<string, unknown> | null; model_key: string | null; model_enabled: boolean | null; provider_enabled: boolean | null; session_found: boolean }[]>`
    SELECT a.id AS agent_id, a.archived_at IS NOT NULL AS archived, r.id AS revision_id, r.config, m.key AS model_key, m.enabled AS model_enabled, p.enabled AS provider_enabled,
      (${sessionId}::text IS NULL OR EXISTS (SELECT 1 FROM sessions s WHERE s.id = ${sessionId} AND s.workspace_id = ${actor.workspaceId})) AS session_found
    FROM (SELECT 1) one
    LEFT JOIN agents a ON a.id = ${agentId} AND a.workspace_id = ${actor.workspaceId}
    LEFT JOIN agent_revisions r ON r.id = coalesce(${revisionId}::text, a.default_revision_id) AND r.agent_id = a.id
    LEFT JOIN models m ON m.workspace_id = ${actor.workspaceId} AND m.key = r.config->>'model'
    LEFT JOIN providers p ON p.id = m.provider_id`;
  const row = rows[0]!;
  const facts = {
    agentId: row.agent_id, agentArchived: Boolean(row.archived), revisionId: row.revision_id, revisionConfig: row.config,
    modelFound: row.model_key !== null, modelEnabled: Boolean(row.model_enabled), providerEnabled: Boolean(row.provider_enabled), sessionFound: row.session_found,
  };
  if (cacheKey) factsCache.set(cacheKey, facts, readGeneration);
  return facts;
}

export interface InsertNewRunInput {
  agentId: string;
  revisionId: string;
  pinned: boolean;
  sessionId: string | null;
  input: MessageContent;
  options: RunOptions;
  labels: Record<string, string>;
  /** Recorded on the audit rows. */
  requestId?: string | null;
}

/**
 * A root run on a new thread (in a new session unless one is named): session, thread, its first
 * inbox entry (assigned to the run), the run, their audit rows and the NOTIFY that wakes workers —
 * one statement, so it is atomic without a transaction and costs one round trip.
 */
export async function insertRunOnNewThread(db: Deps['db'], actor: Actor, input: InsertNewRunInput): Promise<Run> {
  const sessionId = input.sessionId ?? newId('session');
  const threadId = newId('thread');
  const entryId = newId('inboxEntry');
  const runId = newId('run');
  const newSession = input.sessionId === null;
  const payload = JSON.stringify(input.input);
  const options = JSON.stringify(input.options);
  const digest = digestOf({ payload: input.input, options: input.options, agent_id: input.agentId });
  const audit = (resourceKind: string, resourceId: string, changes: Record<string, unknown>) =>
    auditValues({ workspaceId: actor.workspaceId, principalId: actor.principalId, action: 'create', resourceKind, resourceId, version: 1, changes, requestId: input.requestId });
  const audits = [
    ...(newSession ? [audit('session', sessionId, {})] : []),
    audit('thread', threadId, { session_id: { from: null, to: sessionId } }),
    audit('run', runId, { agent_id: { from: null, to: input.agentId }, agent_revision_id: { from: null, to: input.revisionId }, thread_id: { from: null, to: threadId } }),
  ];
  const rows = await db.$queryRaw<Run[]>`
    WITH new_session AS (
      INSERT INTO sessions (id, workspace_id, title, labels, version, created_by_id, updated_by_id, created_at, updated_at)
      SELECT ${sessionId}, ${actor.workspaceId}, '', '{}'::jsonb, 1, ${actor.principalId}, ${actor.principalId}, now(), now() WHERE ${newSession}
    ), new_thread AS (
      INSERT INTO threads (id, workspace_id, session_id, current_run_id, last_run_id, origin, labels, mcp_headers, message_history, last_inbox_position, version, created_by_id, updated_by_id, created_at, updated_at)
      VALUES (${threadId}, ${actor.workspaceId}, ${sessionId}, ${runId}, ${runId}, 'new', '{}'::jsonb, '{}'::jsonb, '[]'::jsonb, 1, 1, ${actor.principalId}, ${actor.principalId}, now(), now())
    ), new_entry AS (
      INSERT INTO inbox_entries (id, workspace_id, thread_id, kind, delivery, status, position, payload, options, agent_id, agent_revision_id, assigned_run_id, principal_id, request_digest, created_at, updated_at)
      VALUES (${entryId}, ${actor.workspaceId}, ${threadId}, 'message', 'queue', 'assigned', 1, ${payload}::jsonb, ${options}::jsonb, ${input.agentId}, ${input.revisionId}, ${runId}, ${actor.principalId}, ${digest}, now(), now())
    ), new_audit AS (
      INSERT INTO audit_events ${AUDIT_COLUMNS} VALUES ${Prisma.join(audits)}
    ), new_run AS (
      INSERT INTO runs (id, workspace_id, session_id, thread_id, agent_id, agent_revision_id, revision_selection, status, trigger, lineage, source_entry_id, principal_id,
        attempts, max_attempts, input, options, labels, memory_mounts, environment_mounts, created_at, updated_at)
      VALUES (${runId}, ${actor.workspaceId}, ${sessionId}, ${threadId}, ${input.agentId}, ${input.revisionId}, ${input.pinned ? 'pinned' : 'default'}, 'accepted', 'input', 'root', ${entryId}, ${actor.principalId},
        0, 3, ${payload}::jsonb, ${options}::jsonb, ${JSON.stringify(input.labels)}::jsonb, '[]'::jsonb, '[]'::jsonb, now(), now())
      RETURNING *
    )
    SELECT ${RUN_COLUMNS}, pg_notify('wsa_run_accepted', new_run.id) IS NULL AS "notified" FROM new_run`;
  const { notified: _, ...run } = rows[0] as Run & { notified: unknown };
  return run as Run;
}
