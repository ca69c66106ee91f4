// The user-facing reads of the scale bench (and of the CI test that holds their plans): REST and
// GraphQL only, with the ids and cursors they need found through the API itself.
import { randomUUID } from 'node:crypto';
import { Rest } from '../blackbox/clients.js';
import { SEED_DAYS } from './amounts.js';
import { consoleOperation } from './console-documents.js';

/**
 * A read; `rangeShare`: the share of the seeded period it aggregates over (a range of days), and so the
 * share of a per-hour table (the run roll-ups) it reads by design (the read-plan test allows that).
 */
export type Read = { name: string; call: () => Promise<unknown>; rangeShare?: number };

export class Api extends Rest {
  /** A REST GET that must answer 200. */
  get(path: string): Promise<any> {
    return this.ok('GET', path);
  }

  /** A GraphQL document that must answer without errors. */
  async graphql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const result = await this.call('POST', '/graphql', { query, variables });
    if (result.status !== 200 || result.body?.errors)
      throw new Error(`GraphQL: ${result.status} ${JSON.stringify(result.body).slice(0, 500)}`);
    return result.body.data;
  }
}

/** The ids and cursors the reads need, found through the API itself. */
export async function discover(api: Api) {
  const newest = (await api.get('/api/v1/runs?limit=1')).items[0];
  const agents = (await api.get('/api/v1/agents?limit=100')).items.filter((agent: any) => agent.name.startsWith('scale agent'));
  // The seed spreads its runs over SEED_DAYS before the newest (template) runs. A run in the middle of
  // the period, and a cursor 5 % from the oldest end of the table (a deep page).
  const span = SEED_DAYS * 86_400_000;
  const oldest = new Date(new Date(newest.created_at).getTime() - span);
  const mid = new Date(oldest.getTime() + span / 2).toISOString();
  const deepAt = new Date(oldest.getTime() + span / 20).toISOString();
  const middle = (await api.get(`/api/v1/runs?created_before=${mid}&status=completed&limit=1`)).items[0];
  const deepCursor = (await api.get(`/api/v1/runs?created_before=${deepAt}&limit=50`)).next_cursor;
  const memories = (await api.get('/api/v1/memories?limit=100')).items;
  const subscription = (await api.get('/api/v1/webhook-subscriptions?limit=1')).items[0];
  // The agents' model (the seeded runs' usage ledger names it): the model pages' charts filter by it.
  const model = (await api.get('/api/v1/models?limit=1')).items[0].key as string;
  return {
    model,
    newest,
    middle,
    agent: agents[3] ?? agents[0],
    mid,
    deepCursor,
    memory: memories[memories.length - 1],
    subscription,
    dayBefore: new Date(new Date(mid).getTime() - 86_400_000).toISOString(),
    weekBefore: new Date(new Date(mid).getTime() - 7 * 86_400_000).toISOString(),
    hourBefore: new Date(new Date(mid).getTime() - 3_600_000).toISOString(),
    // The whole seeded period, to a minute after the newest run; and the thirty days to that end.
    periodStart: oldest.toISOString(),
    monthBefore: new Date(new Date(newest.created_at).getTime() + 60_000 - 30 * 86_400_000).toISOString(),
    periodEnd: new Date(new Date(newest.created_at).getTime() + 60_000).toISOString(),
  };
}

export function reads(api: Api, d: Awaited<ReturnType<typeof discover>>): Read[] {
  const runs = (query: string) => () => api.get(`/api/v1/runs?limit=50${query}`);
  const console = (name: string, variables: Record<string, unknown> = {}) => {
    const text = consoleOperation(name);
    return () => api.graphql(text, variables);
  };
  let analyses = 0;
  return [
    { name: 'runs: newest page', call: runs('') },
    { name: 'runs: agent_id', call: runs(`&agent_id=${d.agent.id}`) },
    { name: 'runs: thread_id', call: runs(`&thread_id=${d.middle.thread_id}`) },
    { name: 'runs: session_id', call: runs(`&session_id=${d.middle.session_id}`) },
    { name: 'runs: principal_id', call: runs(`&principal_id=${d.middle.principal_id}`) },
    { name: 'runs: status=completed', call: runs('&status=completed') },
    { name: 'runs: status=cancelled', call: runs('&status=cancelled') },
    { name: 'runs: status=waiting', call: runs('&status=waiting') },
    { name: 'runs: one day (created_after/before)', call: runs(`&created_after=${d.dayBefore}&created_before=${d.mid}`) },
    { name: 'runs: deep cursor', call: runs(`&cursor=${d.deepCursor}`) },
    { name: 'runs: deep cursor, status=completed', call: runs(`&status=completed&cursor=${d.deepCursor}`) },
    { name: 'runs: deep cursor, agent_id', call: runs(`&agent_id=${d.agent.id}&cursor=${d.deepCursor}`) },
    { name: 'run items: newest page', call: () => api.get(`/api/v1/runs/${d.middle.id}/items?limit=5`) },
    { name: 'run items: forwards (after=3)', call: () => api.get(`/api/v1/runs/${d.middle.id}/items?after=3&limit=5`) },
    { name: 'run items: backwards (before=8)', call: () => api.get(`/api/v1/runs/${d.middle.id}/items?before=8&limit=5`) },
    { name: 'thread history (thread)', call: console('ConsoleThread', { id: d.middle.thread_id }) },
    { name: 'thread history (its runs)', call: console('ConsoleThreadRuns', { threadId: d.middle.thread_id, first: 20 }) },
    { name: 'inbox', call: console('ConsoleInbox', { threadId: d.middle.thread_id, first: 50 }) },
    { name: 'audit trail: newest page', call: () => api.get('/api/v1/audit-events?limit=50') },
    { name: 'audit trail: resource_id', call: () => api.get(`/api/v1/audit-events?resource_id=${d.middle.id}`) },
    { name: 'audit trail: resource_kind=run', call: () => api.get('/api/v1/audit-events?resource_kind=run&limit=50') },
    {
      name: 'audit trail: one day',
      call: () => api.get(`/api/v1/audit-events?created_after=${d.dayBefore}&created_before=${d.mid}&limit=50`),
    },
    {
      name: 'memory search',
      call: () => api.ok('POST', `/api/v1/memories/${d.memory.id}/records/search`, { query: 'refund invoice delivery', limit: 10 }),
    },
    { name: 'memory records page', call: () => api.get(`/api/v1/memories/${d.memory.id}/records?limit=50`) },
    {
      // max_traces is at most 100 (docs/api/findings.md): the analysis selects from the agent's
      // traced runs (a tenth of its runs at every scale) and reads the newest 100.
      name: 'finding analysis (100 of the agent traces)',
      call: () =>
        api.ok(
          'POST',
          '/api/v1/finding-analyses',
          { agent_id: d.agent.id, max_traces: 100 },
          { 'idempotency-key': `scale-${analyses++}-${randomUUID()}` },
        ),
    },
    { name: 'console: overview', call: console('ConsoleOverview') },
    { name: 'console: runs', call: console('ConsoleRuns', { first: 50 }) },
    { name: 'console: runs of an agent', call: console('ConsoleRuns', { first: 50, agentId: d.agent.id }) },
    { name: 'console: threads', call: console('ConsoleThreads', { first: 50 }) },
    { name: 'console: webhook deliveries', call: console('ConsoleWebhookDeliveries', { subscriptionId: d.subscription.id, first: 50 }) },
    { name: 'console: finding analyses', call: console('ConsoleFindingAnalyses', { first: 20 }) },
    // The dashboards' run statistics (runStats) over the console's ranges — an hour (minute buckets), a
    // day, seven days (hour buckets) and thirty days (day buckets; the whole seeded period) — for the
    // workspace, one agent and one model (a model page's charts). Up to a day they read the range's
    // runs; longer ranges read the hourly roll-ups, for their share of the period (rangeShare).
    ...statsReads(api, d),
    { name: 'stats: webhook deliveries, one day', call: () => api.get(`/api/v1/stats/webhooks?from=${d.dayBefore}&to=${d.mid}`) },
    { name: 'console: dashboard, one day', call: console('ConsoleDashboard', { from: d.dayBefore, to: d.mid }) },
    {
      name: 'console: agent charts, one day',
      call: console('ConsoleEntityStats', { from: d.dayBefore, to: d.mid, usageGroup: 'hour', agentId: d.agent.id, agent: d.agent.id }),
    },
  ];
}

/** The run statistics reads: each range for the workspace, one agent and one model. */
function statsReads(api: Api, d: Awaited<ReturnType<typeof discover>>): Read[] {
  const ranges = [
    { name: 'one hour', from: d.hourBefore, to: d.mid, bucket: 'minute' },
    { name: 'one day', from: d.dayBefore, to: d.mid, bucket: 'hour' },
    { name: 'seven days', from: d.weekBefore, to: d.mid, bucket: 'hour', rangeShare: 7 / SEED_DAYS },
    { name: 'thirty days', from: d.monthBefore, to: d.periodEnd, bucket: 'day', rangeShare: 1 },
  ];
  const scopes = [
    { name: 'runs', query: '' },
    { name: 'runs of an agent', query: `&agent_id=${d.agent.id}` },
    { name: 'runs of a model', query: `&model=${encodeURIComponent(d.model)}` },
  ];
  return scopes.flatMap((scope) =>
    ranges.map((range) => ({
      name: `stats: ${scope.name}, ${range.name}`,
      call: () => api.get(`/api/v1/stats/runs?from=${range.from}&to=${range.to}&bucket=${range.bucket}${scope.query}`),
      ...(range.rangeShare ? { rangeShare: range.rangeShare } : {}),
    })),
  );
}
