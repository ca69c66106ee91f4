// The seed's second step: set-based INSERT … SELECT generate_series(…) statements that multiply the
// template rows the service wrote (bench/scale/templates.ts) into the amounts of bench/scale/amounts.ts.
// Run i (0-based) belongs to thread i % threads at position i / threads + 1, so a thread's ten runs are
// spread over the whole period and threads interleave as they do in a live workspace; thread t belongs
// to session t / 2. Every id is `<prefix>_<ULID>` of its row's creation time (bench/scale/ulid-sql.ts).
import type pg from 'pg';
import { RUNS_PER_THREAD, type Amounts } from './amounts.js';
import { ANSWER_TEXT, VOCABULARY } from './vocabulary.js';

/** What the SQL copies from the rows the service wrote. */
export interface SeedTemplates {
  workspaceId: string;
  keyId: string;
  agentIds: string[];
  revisionIds: string[];
  completedRunId: string;
  waitingRunId: string;
  cancelledRunId: string;
  /** The waiting and cancelled runs' client tool call item content. */
  callContent: unknown;
  /** The completed template run's thread history, repeated to ten runs' worth. */
  history: unknown[];
  subscriptionId: string;
  memoryProviderIds: string[];
  memoryNamespaces: string[];
  provenance: Record<string, unknown>;
}

const one = async <T>(client: pg.Client, sql: string, params: unknown[] = []): Promise<T> => {
  const { rows } = await client.query(sql, params);
  if (rows.length !== 1) throw new Error(`expected one row from: ${sql}`);
  return rows[0] as T;
};

/** Reads the template rows back (ids the service generated, documents it wrote). */
export async function readTemplates(client: pg.Client, agentIds: string[], memoryIds: string[]): Promise<SeedTemplates> {
  const { workspace_id: workspaceId, id: keyId } = await one<{ workspace_id: string; id: string }>(
    client,
    'SELECT workspace_id, id FROM api_keys ORDER BY id LIMIT 1',
  );
  const revisions = await client.query('SELECT id, default_revision_id FROM agents WHERE id = ANY($1)', [agentIds]);
  const revisionOf = new Map(revisions.rows.map((row) => [row.id as string, row.default_revision_id as string]));
  const runOf = (status: string) =>
    one<{ id: string; thread_id: string }>(client, 'SELECT id, thread_id FROM runs WHERE status = $1 ORDER BY id LIMIT 1', [status]);
  const completed = await runOf('completed');
  const waiting = await runOf('waiting');
  const cancelled = await runOf('cancelled');
  const { content: callContent } = await one<{ content: unknown }>(
    client,
    "SELECT content FROM run_items WHERE run_id = $1 AND kind = 'client_call'",
    [waiting.id],
  );
  const { message_history: history } = await one<{ message_history: unknown[] }>(
    client,
    'SELECT message_history FROM threads WHERE id = $1',
    [completed.thread_id],
  );
  const { id: subscriptionId } = await one<{ id: string }>(client, 'SELECT id FROM webhook_subscriptions LIMIT 1');
  const memories = await client.query('SELECT provider_id, namespace FROM memories WHERE id = ANY($1) ORDER BY id', [memoryIds]);
  const { provenance } = await one<{ provenance: Record<string, unknown> }>(client, 'SELECT provenance FROM memory_records LIMIT 1');
  const pair = history.slice(0, 2); // one user message and its answer
  return {
    workspaceId,
    keyId,
    agentIds,
    revisionIds: agentIds.map((id) => revisionOf.get(id)!),
    completedRunId: completed.id,
    waitingRunId: waiting.id,
    cancelledRunId: cancelled.id,
    callContent,
    history: Array.from({ length: RUNS_PER_THREAD }, () => pair).flat(),
    subscriptionId,
    memoryProviderIds: memories.rows.map((row) => row.provider_id as string),
    memoryNamespaces: memories.rows.map((row) => row.namespace as string),
    provenance,
  };
}

export interface SeedStep {
  name: string;
  sql: string;
  params?: unknown[];
}

const literalArray = (values: string[]) => `ARRAY[${values.map((value) => `'${value.replace(/'/g, "''")}'`).join(',')}]::text[]`;

/**
 * `pg_temp.words6(n)` and `pg_temp.words12(n)`: 6 or 12 vocabulary words chosen by hashing n
 * (deterministic: the same n, the same text). One expression without FROM, so PostgreSQL inlines it.
 */
export const wordsFunctions = () =>
  [6, 12].map((k) => {
    const pick = (j: number) => `(${literalArray(VOCABULARY)})[1 + abs(hashint8(n * 64 + ${j})::bigint) % ${VOCABULARY.length}]`;
    const text = Array.from({ length: k }, (_, j) => pick(j + 1)).join(` || ' ' || `);
    return `CREATE FUNCTION pg_temp.words${k}(n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT ${text} $$`;
  });

export function seedSteps(a: Amounts, t: SeedTemplates): SeedStep[] {
  const T = a.threads;
  const iso = (ts: string) => `to_char((${ts}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return [
    {
      // The plan of every run, once: which thread, which position, which template, which words.
      name: 'plan of runs',
      sql: `CREATE TEMP TABLE seed_runs AS
        SELECT i, i % ${T} AS t, i / ${T} + 1 AS pos,
          CASE WHEN i / ${T} + 1 = ${RUNS_PER_THREAD} AND i % ${T} % 1000 = 1 THEN 'waiting'
               WHEN i / ${T} + 1 = ${RUNS_PER_THREAD} AND i % ${T} % 25 = 0 THEN 'cancelled' ELSE 'completed' END AS kind,
          pg_temp.words6(i) AS words,
          pg_temp.sid('run', i, i) AS run_id, pg_temp.sid('thr', i % ${T}, i % ${T}) AS thread_id,
          pg_temp.sid('ses', 2 * ((i % ${T}) / 2), (i % ${T}) / 2) AS session_id,
          ($1::text[])[1 + (i % ${T}) % ${a.agents}] AS agent_id, ($2::text[])[1 + (i % ${T}) % ${a.agents}] AS revision_id
        FROM generate_series(0, ${a.runs - 1}::bigint) i`,
      params: [t.agentIds, t.revisionIds],
    },
    {
      name: 'sessions',
      sql: `INSERT INTO sessions (id, workspace_id, title, version, created_by_id, updated_by_id, created_at, updated_at)
        SELECT pg_temp.sid('ses', 2 * s, s), $1, '', 1, $2, $2, pg_temp.at(2 * s), pg_temp.at(2 * s)
        FROM generate_series(0, ${a.sessions - 1}::bigint) s`,
      params: [t.workspaceId, t.keyId],
    },
    {
      name: 'threads',
      sql: `INSERT INTO threads (id, workspace_id, session_id, last_run_id, origin, message_history, last_inbox_position, version,
          created_by_id, updated_by_id, created_at, updated_at)
        SELECT pg_temp.sid('thr', t, t), $1, pg_temp.sid('ses', 2 * (t / 2), t / 2), pg_temp.sid('run', t + ${(RUNS_PER_THREAD - 1) * T}, t + ${(RUNS_PER_THREAD - 1) * T}),
          'new', $3::jsonb, ${RUNS_PER_THREAD}, 1, $2, $2, pg_temp.at(t), pg_temp.at(t + ${(RUNS_PER_THREAD - 1) * T}) + interval '900 ms'
        FROM generate_series(0, ${T - 1}::bigint) t`,
      params: [t.workspaceId, t.keyId, JSON.stringify(t.history)],
    },
    {
      name: 'runs',
      sql: `INSERT INTO runs (id, workspace_id, session_id, thread_id, agent_id, agent_revision_id, revision_selection, status, wait_reason,
          trigger, lineage, source_entry_id, principal_id, attempts, max_attempts, handed_back, current_attempt_id, display_position,
          input, output, failure, labels, environment_mounts, memory_mounts, resolved_skills, options, pending, resume, usage_at_seal,
          checkpoint_seq, version, created_at, started_at, sealed_at, updated_at, trace_id)
        SELECT r.run_id, tpl.workspace_id, r.session_id, r.thread_id, r.agent_id, r.revision_id, tpl.revision_selection, tpl.status, tpl.wait_reason,
          tpl.trigger, tpl.lineage, pg_temp.sid('inb', r.i, r.i), tpl.principal_id, tpl.attempts, tpl.max_attempts, tpl.handed_back,
          pg_temp.sid('att', r.i, r.i), tpl.display_position,
          jsonb_build_object('content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', r.words))),
          CASE WHEN r.kind = 'completed' THEN to_jsonb('echo: ' || r.words) ELSE tpl.output END,
          tpl.failure, tpl.labels, tpl.environment_mounts, tpl.memory_mounts, tpl.resolved_skills, tpl.options, tpl.pending, tpl.resume,
          tpl.usage_at_seal, tpl.checkpoint_seq, tpl.version, pg_temp.at(r.i), pg_temp.at(r.i) + interval '20 ms',
          CASE WHEN tpl.sealed_at IS NULL THEN NULL ELSE pg_temp.at(r.i) + interval '900 ms' END, pg_temp.at(r.i) + interval '900 ms',
          md5('trace' || r.i)
        FROM seed_runs r JOIN runs tpl ON tpl.id = CASE r.kind WHEN 'waiting' THEN $1 WHEN 'cancelled' THEN $2 ELSE $3 END`,
      params: [t.waitingRunId, t.cancelledRunId, t.completedRunId],
    },
    {
      // Each run's usage ledger rows, as its template run's seal wrote them (the model filter of the
      // dashboard statistics finds a model's runs through them), sealed when the run was.
      name: 'usage ledger',
      sql: `INSERT INTO usage_records (run_id, attempt, model_key, workspace_id, agent_id, principal_id, sealed_at, requests,
          input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_picos, currency, complete)
        SELECT r.run_id, u.attempt, u.model_key, u.workspace_id, r.agent_id, u.principal_id, pg_temp.at(r.i) + interval '900 ms', u.requests,
          u.input_tokens, u.output_tokens, u.cached_input_tokens, u.reasoning_tokens, u.cost_picos, u.currency, u.complete
        FROM seed_runs r JOIN usage_records u ON u.run_id = CASE r.kind WHEN 'waiting' THEN $1 WHEN 'cancelled' THEN $2 ELSE $3 END`,
      params: [t.waitingRunId, t.cancelledRunId, t.completedRunId],
    },
    {
      name: 'inbox entries',
      sql: `INSERT INTO inbox_entries (id, workspace_id, thread_id, kind, delivery, status, position, payload, options, agent_id, agent_revision_id,
          assigned_run_id, principal_id, request_digest, created_at, updated_at, finished_at)
        SELECT pg_temp.sid('inb', r.i, r.i), $1, r.thread_id, 'message', 'queue', 'completed', r.pos,
          jsonb_build_object('content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', r.words))), '{}', r.agent_id, r.revision_id,
          r.run_id, $2, 'sha256:' || encode(sha256(convert_to(r.words, 'UTF8')), 'hex'), pg_temp.at(r.i), pg_temp.at(r.i), pg_temp.at(r.i) + interval '900 ms'
        FROM seed_runs r`,
      params: [t.workspaceId, t.keyId],
    },
    {
      // A completed run: the user's message, then the assistant's answer parts; a paused or cancelled
      // one: the user's message and the client tool call it stopped at.
      name: 'run items',
      sql: `INSERT INTO run_items (id, run_id, workspace_id, ordinal, kind, state, content, first_stream_id, last_stream_id, started_at, ended_at)
        SELECT pg_temp.sid('itm', r.i, r.i * 16 + o), r.run_id, $1, o,
          CASE WHEN o = 1 THEN 'user_message' WHEN r.kind = 'completed' THEN 'text_message' ELSE 'client_call' END, 'completed',
          CASE WHEN o = 1 THEN jsonb_build_object('role', 'user', 'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', r.words)))
               WHEN r.kind = 'completed' THEN jsonb_build_object('role', 'assistant', 'text', substr($2, 1 + ((r.i * 37 + o * 11) % 400)::int, 80 + ((r.i + o) % 240)::int))
               ELSE $3::jsonb END,
          's' || (1000000 + 3 * o - 2), 's' || (1000000 + 3 * o),
          pg_temp.at(r.i) + o * interval '60 ms', pg_temp.at(r.i) + o * interval '60 ms' + interval '50 ms'
        FROM seed_runs r, generate_series(1, CASE WHEN r.kind = 'completed' THEN ${a.itemsPerRun} ELSE 2 END) o`,
      params: [t.workspaceId, ANSWER_TEXT, JSON.stringify(t.callContent)],
    },
    {
      name: 'audit rows',
      sql: `INSERT INTO audit_events (id, workspace_id, principal_id, action, resource_kind, resource_id, version, changes, request_id, created_at)
        SELECT pg_temp.sid('aud', r.i, r.i), $1, $2, 'create', 'run', r.run_id, 1,
          jsonb_build_object('agent_id', jsonb_build_object('from', NULL, 'to', r.agent_id), 'thread_id', jsonb_build_object('from', NULL, 'to', r.thread_id),
            'agent_revision_id', jsonb_build_object('from', NULL, 'to', r.revision_id)),
          gen_random_uuid()::text, pg_temp.at(r.i)
        FROM seed_runs r ${a.audit < a.runs ? `WHERE r.i < ${a.audit}` : ''}`,
      params: [t.workspaceId, t.keyId],
    },
    {
      // The completed template run's spans, per seeded run: same names, kinds, attributes and offsets.
      name: 'trace spans',
      sql: `INSERT INTO trace_spans (trace_id, span_id, parent_span_id, workspace_id, run_id, agent_id, attempt, name, kind, attributes, events, links,
          status_code, status_message, start_time, start_time_unix_nano, end_time_unix_nano)
        SELECT md5('trace' || r.i), substr(md5(s.span_id || r.i), 1, 16), CASE WHEN s.parent_span_id IS NULL THEN NULL ELSE substr(md5(s.parent_span_id || r.i), 1, 16) END,
          s.workspace_id, r.run_id, r.agent_id, s.attempt, replace(s.name, s.agent_id, r.agent_id), s.kind,
          replace(replace(s.attributes::text, s.agent_id, r.agent_id), s.run_id, r.run_id)::jsonb, s.events, s.links, s.status_code, s.status_message,
          pg_temp.at(r.i) + (s.start_time - tpl.created_at),
          (pg_temp.ms(r.i) + (extract(epoch FROM s.start_time - tpl.created_at) * 1000)::bigint) * 1000000,
          (pg_temp.ms(r.i) + (extract(epoch FROM s.start_time - tpl.created_at) * 1000)::bigint) * 1000000 + (s.end_time_unix_nano - s.start_time_unix_nano)
        FROM seed_runs r JOIN runs tpl ON tpl.id = $1 JOIN trace_spans s ON s.run_id = tpl.id
        WHERE r.kind = 'completed' AND r.i >= ${a.runs - a.traces}`,
      params: [t.completedRunId],
    },
    {
      name: 'webhook events',
      sql: `INSERT INTO webhook_events (id, workspace_id, kind, payload, created_at)
        SELECT pg_temp.sid('evt', r.i, r.i), $1, 'run.completed',
          jsonb_build_object('run', jsonb_build_object('id', r.run_id, 'status', 'completed', 'failure', NULL, 'agent_id', r.agent_id, 'thread_id', r.thread_id,
            'session_id', r.session_id, 'wait_reason', NULL, 'parent_run_id', NULL, 'agent_revision_id', r.revision_id)),
          pg_temp.at(r.i) + interval '900 ms'
        FROM seed_runs r WHERE r.kind = 'completed' AND r.i % 10 = 0`,
      params: [t.workspaceId],
    },
    {
      name: 'webhook deliveries',
      sql: `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, event_kind, status, attempts, next_attempt_at, last_status_code,
          last_latency_ms, attempt_log, created_at, updated_at, completed_at)
        SELECT pg_temp.sid('whd', r.i, r.i), $1, $2, pg_temp.sid('evt', r.i, r.i), 'run.completed', 'succeeded', 1, NULL, 200, 35,
          jsonb_build_array(jsonb_build_object('attempt', 1, 'at', ${iso("pg_temp.at(r.i) + interval '950 ms'")}, 'status_code', 200, 'latency_ms', 35,
            'error', NULL, 'response', '')),
          pg_temp.at(r.i) + interval '900 ms', pg_temp.at(r.i) + interval '1 s', pg_temp.at(r.i) + interval '1 s'
        FROM seed_runs r WHERE r.kind = 'completed' AND r.i % 10 = 0`,
      params: [t.workspaceId, t.subscriptionId],
    },
    {
      // Records spread evenly over the memories, written over the same period as the runs. The seed's
      // session runs without triggers (session_replication_role = replica), so the change counter
      // (`seq`, one more per record of a namespace) and the namespace's words are written here, set-based,
      // as the triggers memory_records_stamp and memory_records_words would have one row at a time.
      name: 'memory records',
      sql: `INSERT INTO memory_records (provider_id, namespace, id, workspace_id, text, provenance, created_at, updated_at, seq)
        SELECT ($1::text[])[1 + m], ($2::text[])[1 + m], pg_temp.sid('rec', k, n), $3, x.text,
          jsonb_set($4::jsonb, '{created_text_sha256}', to_jsonb(encode(sha256(convert_to(x.text, 'UTF8')), 'hex'))),
          pg_temp.at(k), pg_temp.at(k), 1 + n / ${t.memoryNamespaces.length} + 1
        FROM generate_series(0, ${a.memoryRecords - 1}::bigint) n,
          LATERAL (SELECT n % ${t.memoryNamespaces.length} AS m, (n * ${a.runs} / ${a.memoryRecords})::bigint AS k) p,
          LATERAL (SELECT pg_temp.words12(n + 100000000) AS text) x`,
      params: [t.memoryProviderIds, t.memoryNamespaces, t.workspaceId, JSON.stringify(t.provenance)],
    },
    {
      name: 'memory change counters',
      sql: `INSERT INTO memory_record_versions AS v (provider_id, namespace, version)
        SELECT provider_id, namespace, max(seq) FROM memory_records GROUP BY provider_id, namespace
        ON CONFLICT (provider_id, namespace) DO UPDATE SET version = GREATEST(v.version, EXCLUDED.version)`,
    },
    {
      name: 'memory words',
      sql: `INSERT INTO memory_record_words (provider_id, namespace, word)
        SELECT DISTINCT provider_id, namespace, w FROM memory_records, unnest(tsvector_to_array(tsv)) w WHERE length(w) <= 64
        ON CONFLICT DO NOTHING`,
    },
  ];
}
