// The analysis agent of finding analyses: when the workspace has a usable model, an analysis also
// starts a run of the workspace's builtin trace analyst (src/features/findings/analyst-config.ts), which reads the
// selected traces through the analysis tools and answers findings as structured output. This module
// keeps the analyst up to date, starts its run, and — when the run seals — records the run's status
// on the analysis and, from a completed run, its findings (the same source-key rule as the
// detectors'; evidence that names spans outside the selected traces is dropped).
import type { Run } from '../../generated/prisma/client.js';
import { normalizeAgentConfig } from '../agents/documents/config-schema.js';
import { ANALYSIS_LABEL, ANALYST_DEFINITION, ANALYST_PRESET, analystConfig } from './analyst-config.js';
import { storedLabels } from '../../lib/labels.js';
import { usableModelKeys } from '../models/usable-models.js';
import { AGENTS, builtinAgentModel, findBuiltinAgent, insertBuiltinAgent, type BuiltinAgent } from '../agents/agents.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { SEVERITIES, type Severity } from '../../lib/finding-severities.js';
import type { Evidence, FindingDraft } from './finding-detectors.js';
import { findingsChanged, type FindingChanges } from './finding-events.js';
import { findingEvidence } from './finding-documents.js';
import { recordFindings } from './findings.js';
import { changeHead, publishRevision, unarchiveHead } from '../../services/revisioned.js';
import { startRun } from '../runs/runs.js';
import type { SealHook } from '../../services/run-hooks.js';

/** The label key of the analyst's version on its head. */
const VERSION_LABEL = 'analyst-version';
/** The analyst, as a built-in agent. */
const ANALYST: BuiltinAgent = { presetKind: ANALYST_PRESET, versionLabel: VERSION_LABEL, definition: ANALYST_DEFINITION };

/** Whether an agent is the workspace's builtin analyst (analyses never select its runs). */
export const isAnalyst = (agent: { source: string; presetKind: string | null }) =>
  agent.source === 'builtin' && agent.presetKind === ANALYST_PRESET;

/**
 * The workspace's analyst, created or brought up to date (definition version, a model that stays
 * usable — else the first usable one by key), inside the caller's transaction; null when the
 * workspace has no usable model. Concurrent analyses serialise on a per-workspace lock.
 */
async function prepareAnalyst(call: CallContext): Promise<string | null> {
  await call.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`analyst:${call.actor.workspaceId}`}))`;
  const models = await usableModelKeys(call);
  if (!models.length) return null;
  const note = `analyst definition ${ANALYST_DEFINITION.version}`;
  const existing = await findBuiltinAgent(call, ANALYST);
  if (!existing) return (await insertBuiltinAgent(call, ANALYST, normalizeAgentConfig(analystConfig(models[0]!)), note)).id;
  const { current, currentModel, model = models[0]! } = await builtinAgentModel(call, existing, models);
  const upToDate = storedLabels(existing.labels, 'agents.labels')[VERSION_LABEL] === String(ANALYST_DEFINITION.version);
  if (!current || currentModel !== model || !upToDate || existing.archivedAt) {
    // Brought back as an unarchive through the API would be: a new version and an `unarchive` audit
    // row by the principal that started the analysis.
    if (existing.archivedAt) await unarchiveHead(AGENTS, call, existing.id, '*');
    // The label moves as an update through the API would move it: a new version and an audit row.
    if (!upToDate)
      await changeHead(AGENTS, call, existing.id, '*', 'update', (head) => ({
        labels: { ...storedLabels(head.labels, 'agents.labels'), [VERSION_LABEL]: String(ANALYST_DEFINITION.version) },
      }));
    await publishRevision(AGENTS, call, existing.id, '*', { content: normalizeAgentConfig(analystConfig(model)), note, makeDefault: true });
  }
  return existing.id;
}

/** The run fields of an analysis: its analyst run, or all null when the workspace has no usable model. */
export interface AnalysisRunFields {
  sessionId: string | null;
  threadId: string | null;
  runId: string | null;
  runStatus: string | null;
}

const NO_RUN: AnalysisRunFields = { sessionId: null, threadId: null, runId: null, runStatus: null };

/** Starts the analyst's run over an analysis's selected traces (in the caller's transaction). */
export async function startAnalysisRun(
  call: CallContext,
  analysisId: string,
  agentId: string | null,
  selected: { run_id: string; trace_id: string }[],
): Promise<AnalysisRunFields> {
  if (!agentId || !selected.length) return NO_RUN;
  const analystId = await prepareAnalyst(call);
  if (!analystId) return NO_RUN;
  const text = [
    `Analyse ${selected.length} trace(s) of agent ${agentId}.`,
    'Read them with list_selected_traces and read_trace, then answer the findings.',
  ].join(' ');
  const { run } = await startRun(call, {
    agentId: analystId,
    input: { content: [{ type: 'text', text }] },
    labels: { [ANALYSIS_LABEL]: analysisId },
  });
  return { sessionId: run.sessionId, threadId: run.threadId, runId: run.id, runStatus: run.status };
}

const text = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : '');

/**
 * The analyst's structured output as finding drafts: findings without a title, a known severity or a
 * source key are skipped; evidence must name a selected trace, a run of it and spans of that run in
 * it (other span ids are dropped; evidence left without spans is dropped, and a finding left
 * without evidence is skipped). Source keys are prefixed `agent:` so they never take over a
 * detector's finding. At most one draft per source key (the first).
 */
export function draftsFromOutput(
  output: unknown,
  runId: string,
  spans: { traceId: string; spanId: string; runId: string }[],
  revisions: Map<string, string | null>,
): FindingDraft[] {
  const found = (output as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(found)) return [];
  const known = new Set(spans.map((s) => `${s.traceId}/${s.runId}/${s.spanId}`));
  const drafts = new Map<string, FindingDraft>();
  for (const item of found as Record<string, unknown>[]) {
    const key = text(item?.source_key, 200).trim();
    const severity = item?.severity as Severity;
    if (!key || !text(item.title, 500).trim() || !SEVERITIES.includes(severity) || drafts.has(`agent:${key}`)) continue;
    const cited = (item.evidence ?? {}) as { run_id?: unknown; trace_id?: unknown; span_ids?: unknown };
    const spanIds = Array.isArray(cited.span_ids)
      ? [
          ...new Set(
            cited.span_ids.filter((id): id is string => known.has(`${String(cited.trace_id)}/${String(cited.run_id)}/${String(id)}`)),
          ),
        ]
      : [];
    if (!spanIds.length) continue;
    const evidence: Evidence = { run_id: String(cited.run_id), trace_id: String(cited.trace_id), span_ids: spanIds };
    drafts.set(`agent:${key}`, {
      detector: 'analysis_agent',
      sourceKey: `agent:${key}`,
      category: text(item.category, 100).trim() || 'other',
      severity,
      title: text(item.title, 500),
      explanation: text(item.explanation, 8000),
      suggestion: text(item.suggestion, 8000),
      limitations: text(item.limitations, 8000),
      evidence: [evidence],
      sourceRunId: runId,
      agentRevisionId: revisions.get(evidence.run_id) ?? null,
    });
  }
  return [...drafts.values()];
}

/**
 * After an analyst run seals (through `analysisOnSeal`, for runs carrying the analysis label): the
 * analysis takes the run's status, and a completed run's findings are recorded and counted — one
 * transaction, so findings and counts never disagree.
 */
export async function analysisRunSealed(call: CallContext, run: Run): Promise<void> {
  const analysisId = storedLabels(run.labels, 'runs.labels')[ANALYSIS_LABEL];
  if (!analysisId) return;
  await inTransaction(call, async (bound) => {
    // Locked: two seals of one run's attempts (a resumed run) apply one after the other.
    const [analysis] = await bound.db.$queryRaw<{ agent_id: string | null; read_trace_ids: string[] }[]>`
      SELECT agent_id, read_trace_ids FROM finding_analyses
      WHERE id = ${analysisId} AND workspace_id = ${run.workspaceId} AND run_id = ${run.id} FOR UPDATE`;
    if (!analysis) return;
    let counts = {};
    let changes: FindingChanges | null = null;
    if (run.status === 'completed' && analysis.agent_id) {
      const traceIds = analysis.read_trace_ids;
      const spans = await bound.db.traceSpan.findMany({
        where: { workspaceId: run.workspaceId, agentId: analysis.agent_id, traceId: { in: traceIds } },
        select: { traceId: true, spanId: true, runId: true },
      });
      const runs = await bound.db.run.findMany({
        where: { workspaceId: run.workspaceId, id: { in: [...new Set(spans.map((s) => s.runId))] } },
        select: { id: true, agentRevisionId: true },
      });
      const drafts = draftsFromOutput(run.output, run.id, spans, new Map(runs.map((r) => [r.id, r.agentRevisionId])));
      changes = await recordFindings(bound, analysisId, analysis.agent_id, drafts);
      // The traces cited by this analysis's findings, the detectors' and the agent's together.
      const own = await bound.db.finding.findMany({ where: { analysisId }, select: { evidence: true } });
      const cited = new Set(own.flatMap((f) => findingEvidence(f).map((e) => e.trace_id)).filter((id) => traceIds.includes(id)));
      counts = { findingCount: { increment: changes.created.length + changes.updated.length }, citedTraceCount: cited.size };
    }
    await bound.db.findingAnalysis.update({ where: { id: analysisId }, data: { runStatus: run.status, ...counts } });
    if (changes) await findingsChanged(bound, changes);
  });
}

/** The seal hook of finding analyses: an analyst run's analysis takes its status and, completed, its findings. */
export const analysisOnSeal: SealHook = {
  name: 'finding analysis',
  onSeal: ({ call, run }) => analysisRunSealed(call, run),
};
