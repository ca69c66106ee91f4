// Findings: what analyses found about an agent. Read and listed with `read`; a reviewer's assessment,
// note and `closed` are changed with `write` under If-Match (audited; a change that changes nothing
// keeps the version). Analyses write findings through `recordFindings`: a draft whose source key the
// agent already has updates that finding, any other draft adds one — a constant number of statements
// however many traces were read.
import type { Prisma } from '../../db.js';
import { invalidArgument } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { checkText } from '../../lib/input-rules.js';
import type { CallContext } from '../../services/call-context.js';
import { SEVERITIES } from '../../lib/finding-severities.js';
import { MAX_EVIDENCE, type Evidence, type FindingDraft } from './finding-detectors.js';
import { findingsChanged } from './finding-events.js';
import { findingEvidence } from './finding-documents.js';
import { requirePermission } from '../access/permissions.js';
import { updateVersioned, type VersionedTable } from '../../services/versioned.js';
import { listQuery, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import type { Finding } from '../../generated/prisma/client.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';

const RESOURCE_KIND = 'finding';

/** A reviewer's judgement of a finding; every finding starts `unreviewed`. */
export const ASSESSMENTS = ['unreviewed', 'confirmed', 'not_a_problem', 'fixed', 'wont_fix'] as const;
export const MAX_ASSESSMENT_NOTE = 4000;

export async function getFinding(call: CallContext, id: string): Promise<Finding> {
  requirePermission(call.actor, 'read');
  return inCallersWorkspace(call, 'finding', id, await call.db.finding.findUnique({ where: { id } }));
}

export interface FindingListArgs {
  agentId?: string | null;
  severity?: string | null;
  category?: string | null;
  closed?: boolean | null;
  limit?: number | null;
  cursor?: string | null;
}

/** Newest first; `limit` 1 to 100 (default 50). Filters must all match. */
export async function listFindings(call: CallContext, args: FindingListArgs) {
  requirePermission(call.actor, 'read');
  // Findings carry no labels: only the page arguments go to the shared parts.
  const query = listQuery(newestFirst('findings'), call, { limit: args.limit, cursor: args.cursor });
  if (args.severity != null && !(SEVERITIES as readonly string[]).includes(args.severity))
    throw invalidArgument(`severity must be one of ${SEVERITIES.join(', ')}`, 'severity');
  for (const [field, value] of [
    ['agent_id', args.agentId],
    ['category', args.category],
  ] as const)
    if (value != null) checkText(value, field);
  const rows = await call.db.finding.findMany(
    query.findArgs({
      ...(args.agentId != null ? { agentId: args.agentId } : {}),
      ...(args.severity != null ? { severity: args.severity } : {}),
      ...(args.category != null ? { category: args.category } : {}),
      ...(args.closed != null ? { closed: args.closed } : {}),
    }),
  );
  return query.page(rows);
}

export interface FindingPatch {
  assessment?: string | null;
  assessmentNote?: string | null;
  closed?: boolean | null;
}

const FINDINGS: VersionedTable<Finding> = { resourceKind: RESOURCE_KIND, read: getFinding, delegate: (bound) => bound.db.finding };

export async function updateFinding(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  patch: FindingPatch,
): Promise<Finding> {
  requirePermission(call.actor, 'write');
  const data: Record<string, unknown> = {};
  if (patch.assessment != null) {
    if (!(ASSESSMENTS as readonly string[]).includes(patch.assessment))
      throw invalidArgument(`assessment must be one of ${ASSESSMENTS.join(', ')}`, 'assessment');
    data.assessment = patch.assessment;
  }
  if (patch.assessmentNote !== undefined) {
    const note = patch.assessmentNote ?? '';
    if (note.length > MAX_ASSESSMENT_NOTE)
      throw invalidArgument(`assessment_note must be at most ${MAX_ASSESSMENT_NOTE} characters`, 'assessment_note');
    checkText(note, 'assessment_note');
    data.assessmentNote = note;
  }
  if (patch.closed != null) data.closed = patch.closed;
  // The patch is checked before the finding is read (a bad value is refused even for a missing finding).
  return updateVersioned(
    call,
    FINDINGS,
    { permission: 'write', id, ifMatch },
    () => data,
    (bound, after) => findingsChanged(bound, { created: [], updated: [after] }),
  );
}

/** Evidence of a finding found again: the new entries, then older runs not cited again, newest kept. */
function mergeEvidence(old: Evidence[], fresh: Evidence[]): Evidence[] {
  const seen = new Set(fresh.map((e) => e.run_id));
  return [...old.filter((e) => !seen.has(e.run_id)), ...fresh].slice(-MAX_EVIDENCE);
}

/**
 * Records an analysis's drafts (at most one per source key) for `agentId`, inside the caller's
 * transaction: one read of the agent's findings with those keys, one insert of the new ones, and one
 * update per finding found again. A finding found again takes the new text, severity and analysis;
 * if it was closed and the new evidence cites a run it did not cite before, it is opened again
 * (unless a reviewer assessed it `not_a_problem` or `wont_fix`). Returns what was created and updated.
 */
export async function recordFindings(
  call: CallContext,
  analysisId: string,
  agentId: string,
  drafts: FindingDraft[],
): Promise<{ created: Finding[]; updated: Finding[] }> {
  if (!drafts.length) return { created: [], updated: [] };
  const { actor } = call;
  const existing = await call.db.finding.findMany({
    where: { workspaceId: actor.workspaceId, agentId, sourceKey: { in: drafts.map((d) => d.sourceKey) } },
  });
  const byKey = new Map(existing.map((f) => [f.sourceKey, f]));
  const now = new Date();
  const fresh: Prisma.FindingCreateManyInput[] = [];
  const updated: Finding[] = [];
  for (const draft of drafts) {
    const old = byKey.get(draft.sourceKey);
    const text = {
      title: draft.title.slice(0, 500),
      explanation: draft.explanation.slice(0, 8000),
      suggestion: draft.suggestion.slice(0, 8000),
      limitations: draft.limitations.slice(0, 8000),
      category: draft.category,
      severity: draft.severity,
    };
    if (!old) {
      fresh.push({
        id: newId('finding'),
        workspaceId: actor.workspaceId,
        analysisId,
        agentId,
        agentRevisionId: draft.agentRevisionId,
        sourceRunId: draft.sourceRunId,
        sourceKey: draft.sourceKey,
        ...text,
        evidence: draft.evidence,
        createdById: actor.principalId,
        updatedById: actor.principalId,
        createdAt: now,
        updatedAt: now,
      });
      continue;
    }
    const oldEvidence = findingEvidence(old);
    const cited = new Set(oldEvidence.map((e) => e.run_id));
    const recurred = draft.evidence.some((e) => !cited.has(e.run_id));
    const reopen = old.closed && recurred && !['not_a_problem', 'wont_fix'].includes(old.assessment);
    updated.push(
      await call.db.finding.update({
        where: { id: old.id },
        data: {
          ...text,
          analysisId,
          agentRevisionId: draft.agentRevisionId,
          sourceRunId: draft.sourceRunId,
          evidence: mergeEvidence(oldEvidence, draft.evidence),
          ...(reopen ? { closed: false } : {}),
          version: { increment: 1 },
          updatedById: actor.principalId,
          updatedAt: now,
        },
      }),
    );
  }
  // A concurrent analysis of the same agent may record the same new problem first: its finding stands
  // (the unique source key makes the second insert a no-op rather than an error).
  const created = fresh.length ? await call.db.finding.createManyAndReturn({ data: fresh, skipDuplicates: true }) : [];
  // What this analysis did, exactly (its findings list): one statement; a finding it records a second
  // time (the detectors', then the analyst's) keeps the first change.
  if (created.length + updated.length === 0) return { created, updated };
  await call.db.findingAnalysisFinding.createMany({
    data: [
      ...created.map((f) => ({ workspaceId: actor.workspaceId, analysisId, findingId: f.id, change: 'created' })),
      ...updated.map((f) => ({ workspaceId: actor.workspaceId, analysisId, findingId: f.id, change: 'updated' })),
    ],
    skipDuplicates: true,
  });
  return { created, updated };
}

/** Findings by id for `node(id)` (src/services/nodes.ts). */
export const loadFindings: NodeRowsLoader<Finding> = (call, ids) => call.db.finding.findMany({ where: idsInWorkspace(call, ids) });
