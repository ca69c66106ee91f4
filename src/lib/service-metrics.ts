// The service's own counters and histograms (prom-client), kept for the whole process: what runs, model
// requests, tool calls, webhook deliveries and HTTP requests did since the process started. Every
// instrument is incremented in memory where the thing happens (no statement, no I/O), so the run path
// pays a few label lookups per run; GET /metrics (or METRICS_PORT) renders them with the per-app
// gauges of metrics.ts. Labels are bounded: no ids of runs or requests, route templates instead of
// paths, and workspace-defined names (agents, models) capped per process (see `CappedLabel`).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Every metric of the service starts with this. */
export const PREFIX = 'wsa_';

/**
 * A label whose values come from callers (agent ids, model keys): the first `limit` distinct values
 * seen by this process are kept, every later one is reported as `other`, so a workspace that creates
 * thousands of agents cannot grow the exposition (or the scraper's series) without bound.
 */
export class CappedLabel {
  private readonly seen = new Set<string>();

  constructor(readonly limit: number) {}

  value(raw: string | null | undefined): string {
    if (!raw) return 'none';
    if (this.seen.has(raw)) return raw;
    if (this.seen.size >= this.limit) return OTHER;
    this.seen.add(raw);
    return raw;
  }
}

export const OTHER = 'other';
/** How many distinct agents and models one process names in its labels (the rest: `other`). */
export const LABEL_CAP = 50;

/** Seconds, from a millisecond run to an hour-long one. */
const RUN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
const WAIT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const FIRST_TOKEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The process's registry: these instruments, and the Node process metrics prom-client collects. */
export const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

const registers = [processRegistry];
const agents = new CappedLabel(LABEL_CAP);
const models = new CappedLabel(LABEL_CAP);

const runsStarted = new Counter({
  name: `${PREFIX}runs_started_total`,
  help: 'Runs a worker of this process started (first attempt claimed), by agent id.',
  labelNames: ['agent'],
  registers,
});
const runsEnded = new Counter({
  name: `${PREFIX}runs_ended_total`,
  help: 'Run attempts this process sealed, by the status they left the run in (completed, failed, cancelled, waiting) and agent id.',
  labelNames: ['status', 'agent'],
  registers,
});
const runDuration = new Histogram({
  name: `${PREFIX}run_duration_seconds`,
  help: 'From a run starting (first claimed) to this seal, by status.',
  labelNames: ['status'],
  buckets: RUN_BUCKETS,
  registers,
});
const queueWait = new Histogram({
  name: `${PREFIX}run_queue_wait_seconds`,
  help: 'From a run being accepted to a worker starting it.',
  buckets: WAIT_BUCKETS,
  registers,
});
const modelRequests = new Counter({
  name: `${PREFIX}model_requests_total`,
  help: 'Model requests that reported usage, by model key and provider type.',
  labelNames: ['model', 'provider_type'],
  registers,
});
const modelTokens = new Counter({
  name: `${PREFIX}model_tokens_total`,
  help: 'Tokens of model requests, by kind (input, output; cached_input is part of input, reasoning part of output).',
  labelNames: ['model', 'provider_type', 'kind'],
  registers,
});
const modelCost = new Counter({
  name: `${PREFIX}model_cost_total`,
  help: 'Cost of model requests at the price in effect, in units of the currency (requests without a price add nothing).',
  labelNames: ['model', 'provider_type', 'currency'],
  registers,
});
const firstToken = new Histogram({
  name: `${PREFIX}model_time_to_first_token_seconds`,
  help: 'From sending a model request to its first streamed part (text, reasoning or tool call).',
  labelNames: ['model', 'provider_type'],
  buckets: FIRST_TOKEN_BUCKETS,
  registers,
});
const toolCalls = new Counter({
  name: `${PREFIX}tool_calls_total`,
  help: 'Tool calls settled, by how the tool executes (server, client, question; unknown: no such tool) and outcome.',
  labelNames: ['tool_kind', 'outcome'],
  registers,
});
const webhookAttempts = new Counter({
  name: `${PREFIX}webhook_delivery_attempts_total`,
  help: 'Webhook delivery attempts this process made, by outcome (succeeded; retrying: failed, another attempt is due; failed: given up).',
  labelNames: ['outcome'],
  registers,
});
const httpRequests = new Counter({
  name: `${PREFIX}http_requests_total`,
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status'],
  registers,
});
const httpDuration = new Histogram({
  name: `${PREFIX}http_request_duration_seconds`,
  help: 'From a request arriving to its answer finishing, by method and route template.',
  labelNames: ['method', 'route'],
  buckets: HTTP_BUCKETS,
  registers,
});

const subscriptions = new Gauge({
  name: `${PREFIX}subscriptions_open`,
  help: 'GraphQL subscriptions open on this process over graphql-ws (websocket).',
  registers,
});

/** A graphql-ws subscription started streaming (+1) or ended (-1): src/graphql/ws.ts. */
export function countOpenSubscription(change: 1 | -1): void {
  subscriptions.inc(change);
}

/** The figures of a run: called by the worker when it starts one and when it seals one. */
export const runMetrics = {
  started(agentId: string, acceptedAt: Date, startedAt: Date): void {
    runsStarted.inc({ agent: agents.value(agentId) });
    queueWait.observe(Math.max(0, startedAt.getTime() - acceptedAt.getTime()) / 1000);
  },
  ended(agentId: string, status: string, startedAt: Date | null, sealedAt: Date | null): void {
    runsEnded.inc({ status, agent: agents.value(agentId) });
    if (startedAt && sealedAt) runDuration.observe({ status }, Math.max(0, sealedAt.getTime() - startedAt.getTime()) / 1000);
  },
};

export interface RequestUsage {
  input: number;
  output: number;
  cachedInput: number;
  reasoning: number;
}

/** The figures of model requests: called where their usage is counted (src/engine/usage.ts). */
export const modelMetrics = {
  request(
    modelKey: string,
    providerType: string | undefined,
    tokens: RequestUsage,
    cost: { amount: number; currency: string } | null,
  ): void {
    const labels = { model: models.value(modelKey), provider_type: providerType ?? 'unknown' };
    modelRequests.inc(labels);
    if (tokens.input) modelTokens.inc({ ...labels, kind: 'input' }, tokens.input);
    if (tokens.output) modelTokens.inc({ ...labels, kind: 'output' }, tokens.output);
    if (tokens.cachedInput) modelTokens.inc({ ...labels, kind: 'cached_input' }, tokens.cachedInput);
    if (tokens.reasoning) modelTokens.inc({ ...labels, kind: 'reasoning' }, tokens.reasoning);
    if (cost && cost.amount > 0) modelCost.inc({ ...labels, currency: cost.currency }, cost.amount);
  },

  /**
   * A clock started as a model request is sent; `part()` is called for every streamed part and
   * observes the time to the first one only (a boolean test for the others).
   */
  firstTokenClock(modelKey: string, providerType: string | undefined): { part(): void } {
    const started = performance.now();
    let seen = false;
    return {
      part() {
        if (seen) return;
        seen = true;
        firstToken.observe(
          { model: models.value(modelKey), provider_type: providerType ?? 'unknown' },
          (performance.now() - started) / 1000,
        );
      },
    };
  },
};

/** A settled tool call (src/engine/tool-call-record.ts). */
export function countToolCall(toolKind: string, outcome: string): void {
  toolCalls.inc({ tool_kind: toolKind, outcome });
}

/** A webhook delivery attempt recorded with the delivery's new status (pending: it will be retried). */
export function countWebhookAttempt(status: string): void {
  webhookAttempts.inc({ outcome: status === 'pending' ? 'retrying' : status });
}

/** An answered HTTP request, labelled by its route template (never its path). */
export function observeHttpRequest(method: string, route: string, status: number, seconds: number): void {
  httpRequests.inc({ method, route, status: String(status) });
  httpDuration.observe({ method, route }, seconds);
}
