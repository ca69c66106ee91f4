// The analysis agent of finding analyses, on the scripted development model: without a usable model an
// analysis runs the detectors only (its run fields null, no analyst created); with one it also starts
// a run of the builtin trace analyst, whose script lists the selected traces, reads one with
// read_trace and answers findings — the analysis takes the run's ids and, once the run seals, its
// status, and the findings become findings of the analysed agent with evidence cut to spans of the
// selected traces (an invented span id is dropped, a finding citing only invented spans is skipped).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
});
afterAll(async () => {
  await t?.stop();
});

async function created(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await t.rest('POST', path, { body, headers });
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
}

const analyse = (body: unknown, key: string) => t.rest('POST', '/api/v1/finding-analyses', { body, headers: { 'idempotency-key': key } });

describe('the analysis agent', () => {
  it('runs only with a usable model, reads the traces and records its findings with checked evidence', async () => {
    const agent = await created('/api/v1/agents', {
      name: 'analysed',
      config: { model: 'dev', model_settings: { script: [[{ text: 'Hello.' }]] } },
    });
    const run = await settleRun(
      t,
      (await created('/api/v1/runs', { agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } })).id,
    );
    expect(run.status).toBe('completed');
    const trace = await t.rest('GET', `/api/v1/runs/${run.id}/trace`);
    const spans = trace.body.spans.filter((s: { run_id: string }) => s.run_id === run.id);
    expect(spans.length).toBeGreaterThan(0);
    const cited = spans[0].span_id as string;

    // No usable model (the only one disabled): the detectors alone, no analyst.
    const model = await t.rest('GET', '/api/v1/models/dev');
    const off = await t.rest('PATCH', '/api/v1/models/dev', {
      body: { enabled: false },
      headers: { 'if-match': model.headers.get('etag')! },
    });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const plain = await analyse({ agent_id: agent.id }, 'no-model');
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    expect(plain.body).toMatchObject({ session_id: null, thread_id: null, run_id: null, run_status: null, finding_count: 0 });
    const builtins = await t.rest('GET', '/api/v1/agents?source=builtin&preset_kind=analyst');
    expect(builtins.body.items).toEqual([]);

    // A usable model whose settings script the analyst's run.
    const output = {
      findings: [
        {
          title: 'Greets without being asked',
          explanation: 'The agent answered a greeting only.',
          suggestion: 'Ask what the user needs.',
          limitations: 'One run read.',
          category: 'instructions',
          severity: 'low',
          evidence: { run_id: run.id, trace_id: run.trace_id, span_ids: [cited, 'ffffffffffffffff'] },
          source_key: 'greets_only',
        },
        {
          title: 'Invented',
          explanation: 'Cites nothing that exists.',
          suggestion: '',
          limitations: '',
          category: 'other',
          severity: 'high',
          evidence: { run_id: run.id, trace_id: run.trace_id, span_ids: ['0000000000000000'] },
          source_key: 'invented',
        },
      ],
    };
    const provider = await t.rest('GET', '/api/v1/models/dev');
    await created('/api/v1/models', {
      key: 'analyst-dev',
      provider_id: provider.body.provider_id,
      provider_model: 'echo',
      settings: {
        script: [
          [{ tool_call: { id: 'c1', name: 'list_selected_traces', arguments: {} } }],
          [{ tool_call: { id: 'c2', name: 'read_trace', arguments: { trace_id: run.trace_id } } }],
          [{ text: JSON.stringify(output) }],
        ],
      },
    });
    const started = await analyse({ agent_id: agent.id }, 'with-model');
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    expect(started.body).toMatchObject({
      session_id: expect.any(String),
      thread_id: expect.any(String),
      run_id: expect.any(String),
      run_status: 'accepted',
      read_trace_ids: [run.trace_id],
    });
    const analystRun = await settleRun(t, started.body.run_id);
    expect(analystRun, JSON.stringify(analystRun)).toMatchObject({ status: 'completed', session_id: started.body.session_id });
    const analyst = await t.rest('GET', `/api/v1/agents/${analystRun.agent_id}`);
    expect(analyst.body).toMatchObject({ source: 'builtin', preset_kind: 'analyst' });

    // The run read the trace through its tools.
    const items = await t.rest('GET', `/api/v1/runs/${analystRun.id}/items?limit=100`);
    const results = items.body.items.filter((i: any) => i.kind === 'tool_result').map((i: any) => JSON.stringify(i.content));
    expect(results.some((r: string) => r.includes(cited))).toBe(true);

    // Sealed: the analysis takes the status and the findings, in one transaction.
    const sealed = await waitFor(
      async () => (await t.rest('GET', '/api/v1/finding-analyses?limit=100')).body.items.find((a: any) => a.id === started.body.id),
      (a) => a?.run_status === 'completed',
      'the analysis to take its run status',
    );
    expect(sealed).toMatchObject({ finding_count: 1, cited_trace_count: 1 });
    const findings = await t.rest('GET', `/api/v1/findings?agent_id=${agent.id}&limit=100`);
    const fromAgent = findings.body.items.filter((f: any) => f.source_key.startsWith('agent:'));
    expect(fromAgent).toEqual([
      expect.objectContaining({
        source_key: 'agent:greets_only',
        analysis_id: started.body.id,
        source_run_id: analystRun.id,
        severity: 'low',
        assessment: 'unreviewed',
        evidence: [{ run_id: run.id, trace_id: run.trace_id, span_ids: [cited] }],
      }),
    ]);

    // The analysis lists the analyst's finding among what it created.
    const listed = await t.rest('GET', `/api/v1/finding-analyses/${started.body.id}/findings?change=created`);
    expect(listed.body.items.map((f: any) => f.id)).toEqual([fromAgent[0].id]);

    // An empty body never picks the analyst itself as the agent to analyse.
    const latest = await analyse({}, 'latest');
    expect(latest.body.agent_id).toBe(agent.id);
  });
});
