// Finding events for webhook subscriptions (`finding.created`, `finding.updated`): written in the
// transaction that creates or changes the findings (an analysis, a reviewer's PATCH), like every
// other event, so a rolled-back change announces nothing and a committed one cannot lose its event.
import type { Finding } from '../../generated/prisma/client.js';
import type { CallContext } from '../../services/call-context.js';

export interface FindingChanges {
  created: Finding[];
  updated: Finding[];
}

/** A finding event's payload: the finding's identity and triage state (the whole finding is one GET away). */
function findingEventData(finding: Finding, call: CallContext) {
  return {
    finding: {
      id: finding.id,
      agent_id: finding.agentId,
      analysis_id: finding.analysisId,
      source_run_id: finding.sourceRunId,
      source_key: finding.sourceKey,
      title: finding.title,
      category: finding.category,
      severity: finding.severity,
      assessment: finding.assessment,
      closed: finding.closed,
      version: finding.version,
    },
    actor_id: call.actor?.principalId ?? null,
    request_id: call.requestId,
  };
}

/**
 * Queues the events of what changed, in one statement whatever the number of findings; with no
 * subscriber wanting the kinds it writes nothing. `call` must be bound to the change's transaction.
 */
export async function findingsChanged(call: CallContext, changes: FindingChanges): Promise<void> {
  const events = [
    ...changes.created.map((finding) => ({ kind: 'finding.created', data: findingEventData(finding, call) })),
    ...changes.updated.map((finding) => ({ kind: 'finding.updated', data: findingEventData(finding, call) })),
  ];
  if (!events.length) return;
  const workspaceId = (changes.created[0] ?? changes.updated[0])!.workspaceId;
  await call.db.$queryRaw`SELECT count(webhook_enqueue(${workspaceId}, e->>'kind', e->'data'))::int AS queued
    FROM jsonb_array_elements(${JSON.stringify(events)}::jsonb) AS e`;
}
