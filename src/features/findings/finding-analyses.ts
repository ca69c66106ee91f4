// Finding analyses: select traces of one agent's runs, run the model-free detectors over their stored
// spans and run rows, and record what they find as findings (findings.ts). Starting one needs
// `write` and an Idempotency-Key (a repeat replays the analysis; another request under the same key
// is refused with 409). However many traces are read, an analysis costs a constant number of
// statements: the runs, their spans, their tool-call items and the agent's latency history are each
// read once. The body, the presets and the detectors: docs/api/findings.md.
import type { FindingAnalysis } from '../../generated/prisma/client.js';
import { invalidArgument, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { checkText } from '../../lib/input-rules.js';
import { ANALYST_PRESET } from './analyst-config.js';
import { startAnalysisRun } from './analysis-agent.js';
import { recordAudit } from '../audit/audit.js';
import type { CallContext } from '../../services/call-context.js';
import { DEFAULT_PRESETS, PRESETS, runDetectors, type Detector, type DetectorCall, type DetectorRun } from './finding-detectors.js';
import { findingsChanged, type FindingChanges } from './finding-events.js';
import { analysisSelectedTraces, type Selection } from './finding-documents.js';
import { recordFindings } from './findings.js';
import { storedToolCall } from '../runs/run-item-documents.js';
import { validateIdempotencyKey, withIdempotency } from '../../services/idempotency.js';
import { requirePermission } from '../access/permissions.js';
import { listQuery, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';
import { inStartOrder } from '../traces/traces.js';

export const MAX_TRACES_LIMIT = 100;
export const DEFAULT_MAX_TRACES = 10;
/** How many of the agent's latest completed runs its latency history is taken over. */
const LATENCY_HISTORY_RUNS = 200;
const TRACE_ID = /^[0-9a-f]{32}$/;

export interface AnalysisInput {
  agentId?: string | null;
  traceId?: string | null;
  maxTraces?: number | null;
  presets?: readonly string[] | null;
  startedAfter?: Date | null;
  startedBefore?: Date | null;
}

function validateInput(input: AnalysisInput): Selection {
  if (input.agentId != null) checkText(input.agentId, 'agent_id');
  if (input.traceId != null && !TRACE_ID.test(input.traceId))
    throw invalidArgument('trace_id must be a trace id: 32 lowercase hexadecimal digits', 'trace_id');
  const maxTraces = input.maxTraces ?? DEFAULT_MAX_TRACES;
  if (!Number.isInteger(maxTraces) || maxTraces < 1 || maxTraces > MAX_TRACES_LIMIT)
    throw invalidArgument(`max_traces must be an integer from 1 to ${MAX_TRACES_LIMIT}`, 'max_traces');
  const presets = input.presets == null ? DEFAULT_PRESETS : [...new Set(input.presets)];
  if (presets.length === 0) throw invalidArgument('presets must name at least one preset', 'presets');
  for (const preset of presets)
    if (!Object.hasOwn(PRESETS, preset))
      throw invalidArgument(`presets: unknown preset; known presets are ${Object.keys(PRESETS).join(', ')}`, 'presets');
  const after = input.startedAfter ?? null;
  const before = input.startedBefore ?? null;
  if (after && before && after.getTime() >= before.getTime())
    throw invalidArgument('started_after must be earlier than started_before', 'started_after');
  return {
    agent_id: input.agentId ?? null,
    trace_id: input.traceId ?? null,
    max_traces: maxTraces,
    presets: [...presets].sort(),
    started_after: after?.toISOString() ?? null,
    started_before: before?.toISOString() ?? null,
  };
}

/** Starts an analysis (`write`, Idempotency-Key required) and answers it once its findings are recorded. */
export async function startFindingAnalysis(
  call: CallContext,
  idempotencyKey: string | null | undefined,
  input: AnalysisInput,
): Promise<FindingAnalysis> {
  requirePermission(call.actor, 'write');
  const key = validateIdempotencyKey(idempotencyKey, true)!;
  const selection = validateInput(input);
  let done: { analysis: FindingAnalysis; changes: FindingChanges } | null = null;
  const { value } = await withIdempotency(call, {
    scope: 'finding-analyses.start',
    key,
    // The normalised selection: two bodies that mean the same analysis are the same request.
    request: selection,
    effect: async (bound) => {
      done = await analyse(bound, selection);
      await findingsChanged(bound, done.changes);
      return { analysis_id: done.analysis.id };
    },
  });
  if (done) {
    const { analysis } = done as { analysis: FindingAnalysis };
    // The analyst's run was written inside the transaction: writeNewRun announced it at the commit.
    return analysis;
  }
  // A replay answers the analysis the first request made.
  return call.db.findingAnalysis.findUniqueOrThrow({ where: { id: value.analysis_id } });
}

/** The agent the analysis is about: named, the one of the named trace, or the most recently active one. */
async function resolveAgent(call: CallContext, selection: Selection): Promise<string | null> {
  const workspaceId = call.actor.workspaceId;
  if (selection.trace_id) {
    const root = await call.db.run.findFirst({
      where: { workspaceId, traceId: selection.trace_id, NOT: { lineage: 'subagent' } },
      orderBy: { id: 'asc' },
      select: { agentId: true },
    });
    if (!root) throw notFound('trace', selection.trace_id);
    if (selection.agent_id && selection.agent_id !== root.agentId)
      throw invalidArgument('trace_id names a trace of another agent than agent_id', 'trace_id');
    return root.agentId;
  }
  if (selection.agent_id) {
    const agent = await call.db.agent.findUnique({ where: { id: selection.agent_id }, select: { workspaceId: true } });
    if (!agent || agent.workspaceId !== workspaceId) throw notFound('agent', selection.agent_id);
    return selection.agent_id;
  }
  // The analyst's own runs are never what an analysis is about.
  const analysts = await call.db.agent.findMany({
    where: { workspaceId, source: 'builtin', presetKind: ANALYST_PRESET },
    select: { id: true },
  });
  const latest = await call.db.run.findFirst({
    where: { workspaceId, traceId: { not: null }, agentId: { notIn: analysts.map((a) => a.id) } },
    orderBy: { id: 'desc' },
    select: { agentId: true },
  });
  return latest?.agentId ?? null;
}

async function analyse(call: CallContext, requested: Selection): Promise<{ analysis: FindingAnalysis; changes: FindingChanges }> {
  const { actor } = call;
  const workspaceId = actor.workspaceId;
  // Findings name their analysis; they are recorded before its row, which counts them.
  const analysisId = newId('findingAnalysis');
  const agentId = await resolveAgent(call, requested);
  const selection: Selection = { ...requested, agent_id: agentId };
  const enabled = new Set<Detector>(selection.presets.flatMap((p) => PRESETS[p]!));

  // The traces: the agent's sealed runs that start a trace of their own (a subagent's child run is
  // in its delegating run's trace), newest first.
  const selected = agentId
    ? await call.db.run.findMany({
        where: {
          workspaceId,
          agentId,
          traceId: selection.trace_id ?? { not: null },
          sealedAt: { not: null },
          NOT: { lineage: 'subagent' },
          ...(selection.started_after || selection.started_before
            ? {
                startedAt: {
                  ...(selection.started_after ? { gt: new Date(selection.started_after) } : {}),
                  ...(selection.started_before ? { lt: new Date(selection.started_before) } : {}),
                },
              }
            : {}),
        },
        orderBy: { id: 'desc' },
        take: selection.max_traces + 1,
        select: { id: true, traceId: true },
      })
    : [];
  const truncated = selected.length > selection.max_traces;
  const roots = selected.slice(0, selection.max_traces);
  const traceIds = [...new Set(roots.map((r) => r.traceId!))];

  let changes: FindingChanges = { created: [], updated: [] };
  let citedTraces = new Set<string>();
  if (agentId && traceIds.length) {
    // Every run of the agent in those traces (its own subagent calls included), their spans, their
    // server tool calls, and the agent's latency history: four statements for any number of traces.
    const runs = await call.db.run.findMany({
      where: { workspaceId, agentId, traceId: { in: traceIds } },
      orderBy: { id: 'asc' },
    });
    const runIds = runs.map((r) => r.id);
    // Ordered here (as a trace reads: start time, parents first), not by the statement: an ORDER BY on
    // the start time tempts the planner to walk the workspace's (workspace_id, start_time) index over
    // every span it has, where the primary key (trace_id first) reads just these traces' spans.
    const spans = inStartOrder(await call.db.traceSpan.findMany({ where: { workspaceId, traceId: { in: traceIds } } }));
    const items = enabled.has('tool_loop')
      ? await call.db.runItem.findMany({
          where: { workspaceId, runId: { in: runIds }, kind: 'tool_call' },
          orderBy: [{ runId: 'asc' }, { ordinal: 'asc' }],
          select: { runId: true, content: true },
        })
      : [];
    const calls: DetectorCall[] = items.flatMap((item) => {
      const c = storedToolCall(item.content);
      return c.tool_call_id && c.tool_name
        ? [{ runId: item.runId, toolCallId: c.tool_call_id, toolName: c.tool_name, arguments: c.arguments }]
        : [];
    });
    const latency = enabled.has('latency_outlier') ? await latencyHistory(call, agentId) : null;
    const detectorRuns: DetectorRun[] = runs.map((r) => ({
      id: r.id,
      traceId: r.traceId!,
      agentRevisionId: r.agentRevisionId,
      status: r.status,
      failure: r.failure,
      attempts: r.attempts,
      startedAt: r.startedAt,
      sealedAt: r.sealedAt,
    }));
    const drafts = runDetectors({ runs: detectorRuns, spans, calls, latency }, enabled);
    citedTraces = new Set(drafts.flatMap((d) => d.evidence.map((e) => e.trace_id)));
    changes = await recordFindings(call, analysisId, agentId, drafts);
  }

  // With a usable model, the workspace's analyst reads the same traces too (analysis-agent.ts): its
  // run is started here and its findings are recorded when it seals; without one the fields are null.
  const selectedTraces = roots.map((r) => ({ run_id: r.id, trace_id: r.traceId! }));
  const runFields = await startAnalysisRun(call, analysisId, agentId, selectedTraces);
  const analysis = await call.db.findingAnalysis.create({
    data: {
      id: analysisId,
      workspaceId,
      agentId,
      ...runFields,
      findingCount: changes.created.length + changes.updated.length,
      citedTraceCount: citedTraces.size,
      readTraceIds: traceIds,
      selectedTraces,
      selection,
      selectionTruncated: truncated,
      createdById: actor.principalId,
      updatedById: actor.principalId,
    },
  });
  await recordAudit(call, {
    action: 'create',
    resourceKind: 'finding_analysis',
    resourceId: analysis.id,
    changes: {
      selection: { from: null, to: selection },
      findings_created: { from: null, to: changes.created.map((f) => f.id) },
      findings_updated: { from: null, to: changes.updated.map((f) => f.id) },
    },
  });
  return { analysis, changes };
}

/** The agent's median run duration (start to seal) over its latest completed runs. */
async function latencyHistory(call: CallContext, agentId: string): Promise<{ medianMs: number; count: number } | null> {
  const rows = await call.db.$queryRaw<{ median: number | null; count: bigint }[]>`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::float8 AS median, count(*) AS count FROM (
      SELECT extract(epoch FROM sealed_at - started_at) * 1000 AS ms FROM runs
      WHERE workspace_id = ${call.actor.workspaceId} AND agent_id = ${agentId} AND status = 'completed'
        AND started_at IS NOT NULL AND sealed_at IS NOT NULL
      ORDER BY id DESC LIMIT ${LATENCY_HISTORY_RUNS}::int
    ) history`;
  const row = rows[0];
  return row && row.median !== null ? { medianMs: Number(row.median), count: Number(row.count) } : null;
}

/** The workspace's analyses, newest first; `limit` 1 to 100 (default 20). */
export async function listFindingAnalyses(call: CallContext, args: { limit?: number | null; cursor?: string | null }) {
  requirePermission(call.actor, 'read');
  const shape = newestFirst('finding-analyses', { sizes: { default: 20, max: 100 } });
  const query = listQuery(shape, call, { limit: args.limit, cursor: args.cursor });
  const rows = await call.db.findingAnalysis.findMany(query.findArgs());
  return query.page(rows);
}

export async function getFindingAnalysis(call: CallContext, id: string): Promise<FindingAnalysis> {
  requirePermission(call.actor, 'read');
  return inCallersWorkspace(call, 'finding analysis', id, await call.db.findingAnalysis.findUnique({ where: { id } }));
}

/** A trace a finding analysis selected: the root run and its trace. */
export interface SelectedTrace {
  run_id: string;
  trace_id: string;
}

/**
 * The traces a run may read as its workspace's trace analyst: those of the finding analysis its
 * label names, when the run is of the builtin analyst and the analysis is of the run's workspace;
 * null for any other run.
 */
export async function analystRunSelection(
  call: CallContext,
  run: { agentId: string; workspaceId: string },
  analysisId: string,
): Promise<SelectedTrace[] | null> {
  const agent = await call.db.agent.findUnique({ where: { id: run.agentId }, select: { source: true, presetKind: true } });
  if (agent?.source !== 'builtin' || agent.presetKind !== ANALYST_PRESET) return null;
  const analysis = await call.db.findingAnalysis.findUnique({
    where: { id: analysisId },
    select: { workspaceId: true, selectedTraces: true },
  });
  if (!analysis || analysis.workspaceId !== run.workspaceId) return null;
  return analysisSelectedTraces(analysis);
}
/** Finding analyses by id for `node(id)` (src/services/nodes.ts). */
export const loadFindingAnalyses: NodeRowsLoader<FindingAnalysis> = (call, ids) =>
  call.db.findingAnalysis.findMany({ where: idsInWorkspace(call, ids) });
