// Webhook events: their kinds, their payloads and the outbox write. An event is written in the
// transaction (or the single statement) of the change it reports, by the SQL function
// `webhook_enqueue` (see the migration that adds it): with no enabled subscription of the workspace
// wanting the kind, that is one indexed look-up and nothing else, so changes nobody subscribed to
// pay nothing measurable. Otherwise it writes the event, one pending delivery per subscription and
// a NOTIFY that wakes the deliverers at commit (src/features/webhooks/webhook-delivery.ts).
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';

type Tx = Prisma.TransactionClient;

/** The NOTIFY channel `webhook_enqueue` announces new deliveries on. */
export const WEBHOOK_CHANNEL = 'webhook_deliveries';

export const RUN_EVENT_KINDS = ['run.waiting', 'run.completed', 'run.failed', 'run.cancelled'] as const;

/**
 * Every kind a subscription can ask for (the test ping, `webhook.ping`, goes to one subscription
 * whatever it asked for). Kinds added after the first list come after it, so the published order of
 * the earlier ones never changes.
 */
export const WEBHOOK_EVENT_KINDS = [
  ...RUN_EVENT_KINDS,
  'inbox_entry.failed',
  'agent.revision_published',
  'skill.revision_published',
  'provider.changed',
  'model.changed',
  'connection.changed',
  'environment_template.changed',
  'environment.changed',
  'memory.changed',
  'finding.created',
  'finding.updated',
  'run.started',
  'agent.changed',
  'skill.changed',
  'asset.changed',
  'session.changed',
  'thread.changed',
  'webhook_subscription.changed',
  'budget.threshold_reached',
  'budget.exceeded',
] as const;

export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

/** What each kind reports, in the words of docs/api/webhooks.md: the one list the API answers (`webhookEventKinds`). */
export const WEBHOOK_EVENT_KIND_DESCRIPTIONS: Record<WebhookEventKind, string> = {
  'run.waiting': 'A run pauses (approvals, client tools, questions).',
  'run.completed': 'A run completes.',
  'run.failed': 'A run fails (also when its worker was lost and its attempts are spent).',
  'run.cancelled': 'A run is cancelled.',
  'inbox_entry.failed': 'An inbox entry fails (its run failed, or it could not start).',
  'agent.revision_published': "An agent's new revision, or revision 1 of a new agent.",
  'skill.revision_published': "A skill's new revision, or revision 1 of a new skill.",
  'provider.changed': 'A provider of any kind is created or changed.',
  'model.changed': 'A model is created or changed.',
  'connection.changed': 'A connection is created, changed or revoked.',
  'environment_template.changed': 'An environment template is created or changed.',
  'environment.changed': 'An environment is created, stopped or destroyed.',
  'memory.changed': 'A memory (the resource, not its records) is created or changed.',
  'finding.created': 'A finding analysis records a new finding.',
  'finding.updated': 'A finding changes: found again by a later analysis, or assessed, annotated, closed or reopened.',
  'run.started': 'A worker starts a run (its first attempt; a retry or a hand-back by a stopping worker does not send it again).',
  'agent.changed': "An agent's head changes: renamed or relabelled, archived, unarchived, its default revision or avatar changed.",
  'skill.changed': "A skill's head changes: renamed or relabelled, archived, unarchived or its default revision changed.",
  'asset.changed': 'An asset is created (uploaded, or stored by a run) or retired.',
  'session.changed': 'A session is created or changed.',
  'thread.changed': 'A thread is created or changed (its title, labels or state; not its messages, which runs report).',
  'webhook_subscription.changed':
    'A webhook subscription is created, changed, deleted, has its secret rotated or is disabled by the service.',
  'budget.threshold_reached': "A budget's spending reaches one of its `notify_at` fractions of its limit (each once per period).",
  'budget.exceeded': 'A budget reaches its limit (once per period); a `block` budget now refuses new runs and model requests.',
};

/**
 * The `.changed` kind of each audited resource kind whose changes are reported as resource changes
 * (provider kinds, `…_provider`, are `provider.changed`). Agents and skills report their creation as
 * `….revision_published` (revision 1) and every later change of the head here.
 */
const RESOURCE_CHANGE_KINDS: Record<string, WebhookEventKind> = {
  model: 'model.changed',
  connection: 'connection.changed',
  environment_template: 'environment_template.changed',
  environment: 'environment.changed',
  memory: 'memory.changed',
  agent: 'agent.changed',
  skill: 'skill.changed',
  asset: 'asset.changed',
  session: 'session.changed',
  thread: 'thread.changed',
  webhook_subscription: 'webhook_subscription.changed',
};

/** The kinds a subscription can ask for, in the order above, with what each reports. Any authenticated caller may read them. */
export function listWebhookEventKinds(): { kind: WebhookEventKind; description: string }[] {
  return WEBHOOK_EVENT_KINDS.map((kind) => ({ kind, description: WEBHOOK_EVENT_KIND_DESCRIPTIONS[kind] }));
}
export const PING_KIND = 'webhook.ping';

/** Writes an event in the caller's transaction (a no-op without a subscriber). Returns the number of deliveries written. */
export async function enqueueWebhookEvent(
  db: Db | Tx,
  workspaceId: string,
  kind: WebhookEventKind,
  data: Record<string, unknown>,
): Promise<number> {
  const rows = await db.$queryRaw<
    { queued: number }[]
  >`SELECT webhook_enqueue(${workspaceId}, ${kind}, ${JSON.stringify(data)}::jsonb) AS queued`;
  return rows[0]?.queued ?? 0;
}

/**
 * The same write as an SQL expression, for statements that change a run and report it at once
 * (the seal): it must be evaluated in a CTE the statement reads, or PostgreSQL skips it.
 */
export function enqueueExpression(
  workspaceId: Prisma.Sql | string,
  kind: Prisma.Sql | string,
  data: Prisma.Sql | Record<string, unknown>,
): Prisma.Sql {
  const ws = typeof workspaceId === 'string' ? Prisma.sql`${workspaceId}` : workspaceId;
  const k = typeof kind === 'string' ? Prisma.sql`${kind}` : kind;
  const d = data instanceof Prisma.Sql ? data : Prisma.sql`${JSON.stringify(data)}::jsonb`;
  return Prisma.sql`webhook_enqueue(${ws}, ${k}, ${d})`;
}

/** A run's event payload: what changed and where to read more (the run itself is one GET away). */
export function runEventData(
  run: { id: string; threadId: string; sessionId: string; agentId: string; agentRevisionId: string; parentRunId?: string | null },
  status: string,
  extra: { waitReason?: string | null; failure?: { code: string; message: string } | null },
): Record<string, unknown> {
  return {
    run: {
      id: run.id,
      status,
      session_id: run.sessionId,
      thread_id: run.threadId,
      agent_id: run.agentId,
      agent_revision_id: run.agentRevisionId,
      parent_run_id: run.parentRunId ?? null,
      wait_reason: extra.waitReason ?? null,
      failure: extra.failure ?? null,
    },
  };
}

/** What an audit row (see audit.ts) says to subscribers: the kind and payload of its event, or null. */
export function auditWebhookEvent(row: {
  principalId: string;
  requestId: string | null;
  action: string;
  resourceKind: string;
  resourceId: string;
  version?: number | null;
  changes?: Record<string, unknown>;
}): { kind: WebhookEventKind; data: Record<string, unknown> } | null {
  const changes = (row.changes ?? {}) as Record<string, { to?: unknown } | undefined>;
  const actor = { actor_id: row.principalId, request_id: row.requestId };
  // A published revision: a new revision, or the first one a new agent or skill starts with.
  for (const kind of ['agent', 'skill'] as const) {
    if (row.resourceKind === `${kind}_revision` && row.action === 'create')
      return {
        kind: `${kind}.revision_published`,
        data: {
          [`${kind}_id`]: changes[`${kind}_id`]?.to ?? null,
          revision_id: row.resourceId,
          number: changes.number?.to ?? null,
          digest: changes.digest?.to ?? null,
          ...actor,
        },
      };
    if (row.resourceKind === kind && row.action === 'create')
      return {
        kind: `${kind}.revision_published`,
        data: { [`${kind}_id`]: row.resourceId, revision_id: changes.default_revision_id?.to ?? null, number: 1, digest: null, ...actor },
      };
  }
  const resource = row.resourceKind.endsWith('_provider') ? 'provider.changed' : RESOURCE_CHANGE_KINDS[row.resourceKind];
  if (!resource) return null;
  return {
    kind: resource,
    data: {
      resource_kind: row.resourceKind,
      [row.resourceKind === 'model' ? 'model_key' : 'resource_id']: row.resourceId,
      action: row.action,
      version: row.version ?? null,
      // Names only: values may be large, and secrets are never shown anyway.
      changed_fields: Object.keys(changes).sort(),
      ...actor,
    },
  };
}
