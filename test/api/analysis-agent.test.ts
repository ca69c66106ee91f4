// The analysis agent of finding analyses, on the scripted development model: without a usable model an
// analysis runs the detectors only (its run fields null, no analyst created); with one it also starts
// a run of the builtin trace analyst, whose script lists the selected traces, reads one with
// read_trace and answers findings — the analysis takes the run's ids and, once the run seals, its
// status, and the findings become findings of the analysed agent with evidence cut to spans of the
// selected traces (an invented span id is dropped, a finding citing only invented spans is skipped).
// An analysis that brings back an archived analyst audits the unarchive as the API's unarchive does,
// by the principal that started the analysis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey } from '../../src/features/access/admin.js';

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
          // No limitations (nor suggestion): the schema leaves them out of `required`.
          title: 'Answers tersely',
          explanation: 'One short sentence.',
          category: 'style',
          severity: 'low',
          evidence: { run_id: run.id, trace_id: run.trace_id, span_ids: [cited] },
          source_key: 'terse',
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
    expect(sealed).toMatchObject({ finding_count: 2, cited_trace_count: 1 });
    const findings = await t.rest('GET', `/api/v1/findings?agent_id=${agent.id}&limit=100`);
    const fromAgent = findings.body.items
      .filter((f: any) => f.source_key.startsWith('agent:'))
      .sort((a: any, b: any) => a.source_key.localeCompare(b.source_key));
    expect(fromAgent).toEqual([
      expect.objectContaining({
        source_key: 'agent:greets_only',
        analysis_id: started.body.id,
        source_run_id: analystRun.id,
        severity: 'low',
        assessment: 'unreviewed',
        limitations: 'One run read.',
        evidence: [{ run_id: run.id, trace_id: run.trace_id, span_ids: [cited] }],
      }),
      expect.objectContaining({ source_key: 'agent:terse', analysis_id: started.body.id }),
    ]);
    // Unset text members are "" in the representation, on the list and on the single read alike.
    expect(fromAgent[1]).toMatchObject({ limitations: '', suggestion: '' });
    expect((await t.rest('GET', `/api/v1/findings/${fromAgent[1].id}`)).body).toMatchObject({ limitations: '', suggestion: '' });

    // The analysis lists the analyst's findings among what it created.
    const listed = await t.rest('GET', `/api/v1/finding-analyses/${started.body.id}/findings?change=created`);
    expect(listed.body.items.map((f: any) => f.id).sort()).toEqual(fromAgent.map((f: any) => f.id).sort());

    // An empty body never picks the analyst itself as the agent to analyse.
    const latest = await analyse({}, 'latest');
    expect(latest.body.agent_id).toBe(agent.id);
  });

  it('an analysis that brings back the archived analyst audits the unarchive, by the principal that started the analysis', async () => {
    // A key of its own (read and write, as an analysis needs), so the audit row's actor is told apart
    // from the admin key that archives.
    const writer = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' });
    const dev = await t.rest('GET', '/api/v1/models/dev');
    await created('/api/v1/models', {
      key: 'unarchive-dev',
      provider_id: dev.body.provider_id,
      provider_model: 'echo',
      settings: { script: [[{ text: 'Hello.' }]] },
    });
    const agent = await created('/api/v1/agents', {
      name: 'analysed again',
      config: { model: 'unarchive-dev', model_settings: { script: [[{ text: 'Hello.' }]] } },
    });
    const run = await created('/api/v1/runs', { agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } });
    expect((await settleRun(t, run.id)).status).toBe('completed');

    const analyseAsWriter = (key: string) =>
      t.rest('POST', '/api/v1/finding-analyses', {
        body: { agent_id: agent.id },
        headers: { 'idempotency-key': key },
        token: writer.token,
      });
    const first = await analyseAsWriter('before-archive');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.run_id).toEqual(expect.any(String));
    const analystId = (await settleRun(t, first.body.run_id)).agent_id as string;

    const analyst = await t.rest('GET', `/api/v1/agents/${analystId}`);
    expect(analyst.body).toMatchObject({ source: 'builtin', preset_kind: 'analyst' });
    const archived = await t.rest('POST', `/api/v1/agents/${analystId}/archive`, { headers: { 'if-match': analyst.headers.get('etag')! } });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    expect(archived.body.archived_at).not.toBeNull();

    const second = await analyseAsWriter('after-archive');
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect((await settleRun(t, second.body.run_id)).agent_id).toBe(analystId);
    const back = await t.rest('GET', `/api/v1/agents/${analystId}`);
    expect(back.body).toMatchObject({ archived_at: null, version: archived.body.version + 1 });

    const audited = async () => (await t.rest('GET', `/api/v1/audit-events?resource_id=${analystId}&limit=100`)).body.items as any[];
    const byAnalysis = (await audited()).filter((e) => e.action === 'unarchive');
    expect(byAnalysis).toEqual([
      expect.objectContaining({
        action: 'unarchive',
        resource_kind: 'agent',
        resource_id: analystId,
        principal_id: second.body.created_by_id,
        version: archived.body.version + 1,
      }),
    ]);
    expect(byAnalysis[0].principal_id).toBe(writer.id);

    // The same row as an unarchive through the API writes.
    const again = await t.rest('POST', `/api/v1/agents/${analystId}/archive`, { headers: { 'if-match': back.headers.get('etag')! } });
    const unarchived = await t.rest('POST', `/api/v1/agents/${analystId}/unarchive`, {
      headers: { 'if-match': again.headers.get('etag')! },
    });
    expect(unarchived.status, JSON.stringify(unarchived.body)).toBe(200);
    const both = (await audited()).filter((e) => e.action === 'unarchive');
    expect(both).toHaveLength(2);
    const throughApi = both.find((e) => e.id !== byAnalysis[0].id);
    expect(Object.keys(byAnalysis[0].changes).sort()).toEqual(Object.keys(throughApi.changes).sort());
    expect(byAnalysis[0].changes).toMatchObject({ archivedAt: { to: null } });

    // An analyst of an older definition (its label says so) is brought up to date by the next
    // analysis: the label moves as a PATCH would move it, with a new version and an `update` row by
    // the principal that started the analysis.
    const current = await t.rest('GET', `/api/v1/agents/${analystId}`);
    const older = await t.rest('PATCH', `/api/v1/agents/${analystId}`, {
      body: { labels: { ...current.body.labels, 'analyst-version': '0' } },
      headers: { 'if-match': current.headers.get('etag')! },
    });
    expect(older.status, JSON.stringify(older.body)).toBe(200);
    const third = await analyseAsWriter('older-definition');
    expect(third.status, JSON.stringify(third.body)).toBe(201);
    await settleRun(t, third.body.run_id);
    const upToDate = await t.rest('GET', `/api/v1/agents/${analystId}`);
    expect(upToDate.body.labels['analyst-version']).toBe(current.body.labels['analyst-version']);
    const labelRows = (await audited()).filter((e) => e.action === 'update' && e.principal_id === writer.id);
    expect(labelRows).toEqual([
      expect.objectContaining({ resource_kind: 'agent', resource_id: analystId, version: older.body.version + 1 }),
    ]);
    expect(Object.keys(labelRows[0].changes)).toEqual(['labels']);
  });
});
