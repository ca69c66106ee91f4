// Assets in runs: input parts `{type: "image" | "file", asset_id}` reach the model as AI SDK image and
// file parts with the asset's bytes (a real Anthropic client against a loopback server), a text-only
// model gets an attached image described by the media understanding model, the thread's history keeps
// a reference instead of the bytes, and attachments are refused when the asset is retired (409), of
// another workspace (404), or not an image for an image part (400) — in runs, resumes and inbox entries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { startAnthropicServer, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { createWorkspace } from '../../src/features/access/admin.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
// A minimal PDF: enough for the signature and for the model API's document block.
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

let t: TestApp;
let vision: ModelServer;
let textOnly: ModelServer;
let describer: ModelServer;
let otherKey: string;

async function addModel(server: ModelServer, type: string, key: string, settings: Record<string, unknown> = {}) {
  const provider = await t.rest('POST', '/api/v1/model-providers', {
    body: { type, name: key, config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status).toBe(201);
  const model = await t.rest('POST', '/api/v1/models', {
    body: { key, provider_id: provider.body.id, provider_model: 'loop-model', settings },
  });
  expect(model.status, JSON.stringify(model.body)).toBe(201);
}

async function upload(bytes: Buffer, contentType: string, token = t.apiKey) {
  const response = await fetch(`${t.url}/api/v1/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: new Uint8Array(bytes),
  });
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body;
}

async function agentWith(config: Record<string, unknown>) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Reader', config } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body;
}

const lastMessagesRequest = () => vision.requests.filter((r) => r.path === '/v1/messages').at(-1)!;

beforeAll(async () => {
  [vision, textOnly, describer] = await Promise.all([startAnthropicServer(), startOpenAICompatibleServer(), startOpenAICompatibleServer()]);
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  await addModel(vision, 'anthropic', 'vision-main');
  await addModel(textOnly, 'openai_compatible', 'text-main');
  await addModel(describer, 'openai_compatible', 'eyes', { input_media: ['image'] });
});

afterAll(async () => {
  await t?.stop();
  await Promise.all([vision?.close(), textOnly?.close(), describer?.close()]);
});

describe('assets in runs', () => {
  it('image and file parts reach the model with the assets bytes; items and the history keep references', async () => {
    const image = await upload(PNG, 'image/png');
    const pdf = await upload(PDF, 'application/pdf');
    const agent = await agentWith({ model: 'vision-main' });
    vision.turns.push({ text: 'A pixel and a document.' });
    const input = {
      content: [
        { type: 'text', text: 'What are these?' },
        { type: 'image', asset_id: image.id },
        { type: 'file', asset_id: pdf.id },
      ],
    };
    const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    expect(await settleRun(t, run.body.id)).toMatchObject({ status: 'completed', output: 'A pixel and a document.' });

    const content = lastMessagesRequest().body.messages[0].content;
    expect(content).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } });
    expect(content).toContainEqual(
      expect.objectContaining({
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') },
      }),
    );

    // The run's user_message item shows the parts with the assets' media types.
    const items = (await t.rest('GET', `/api/v1/runs/${run.body.id}/items`)).body.items as any[];
    const user = items.find((item) => item.kind === 'user_message');
    expect(user.content.content).toEqual([
      { type: 'text', text: 'What are these?' },
      { type: 'image', asset_id: image.id, media_type: 'image/png' },
      { type: 'file', asset_id: pdf.id, media_type: 'application/pdf' },
    ]);
    // The history holds references, not the bytes.
    const thread = await t.app.deps.db.thread.findUniqueOrThrow({ where: { id: run.body.thread_id } });
    const history = JSON.stringify(thread.messageHistory);
    expect(history).toContain(`asset:${image.id}`);
    expect(history).not.toContain(PDF.toString('base64'));

    // A later run of the thread still sends them, even after the asset is retired (its content stays readable).
    expect((await t.rest('DELETE', `/api/v1/assets/${pdf.id}`)).status).toBe(200);
    vision.turns.push({ text: 'Still there.' });
    const next = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.id, thread_id: run.body.thread_id, input: { content: [{ type: 'text', text: 'And again?' }] } },
    });
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(await settleRun(t, next.body.id)).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(lastMessagesRequest().body.messages)).toContain(PDF.toString('base64'));
  });

  it('an attached image is described for a text-only model', async () => {
    const image = await upload(PNG, 'image/png');
    const agent = await agentWith({ model: 'text-main', media_understanding: { image: 'eyes' } });
    describer.turns.push({ text: 'One red pixel.' });
    textOnly.turns.push({ text: 'A red pixel.' });
    const run = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: agent.id,
        input: {
          content: [
            { type: 'text', text: 'Look.' },
            { type: 'image', asset_id: image.id },
          ],
        },
      },
    });
    expect(await settleRun(t, run.body.id)).toMatchObject({ status: 'completed', output: 'A red pixel.' });
    const asked = describer.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
    expect(JSON.stringify(asked.body)).toContain(PNG.toString('base64'));
    const main = textOnly.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
    expect(JSON.stringify(main.body)).toContain('One red pixel.');
  });

  it('refuses retired (409), foreign (404), unknown (404) and mistyped (400) attachments in runs and inbox entries', async () => {
    const agent = await agentWith({ model: 'vision-main' });
    const retired = await upload(PNG, 'image/png');
    expect((await t.rest('DELETE', `/api/v1/assets/${retired.id}`)).status).toBe(200);
    const text = await upload(Buffer.from('plain words'), 'text/plain');
    const foreign = await upload(PNG, 'image/png', otherKey);
    const attempt = (part: Record<string, unknown>) =>
      t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'x' }, part] } } });

    const gone = await attempt({ type: 'image', asset_id: retired.id });
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatchObject({ code: 'failed_precondition', details: { field: 'input.content[1].asset_id' } });
    expect(gone.body.error.message).toContain('retired');
    for (const id of [foreign.id, 'ast_01JZZZZZZZZZZZZZZZZZZZZZZZ']) {
      const missing = await attempt({ type: 'file', asset_id: id });
      expect(missing.status).toBe(404);
      expect(missing.body.error.details.field).toBe('input.content[1].asset_id');
    }
    const notImage = await attempt({ type: 'image', asset_id: text.id });
    expect(notImage.status).toBe(400);
    // The text asset is fine as a file part; a part with both bytes and an asset is not.
    vision.turns.push({ text: 'ok' });
    const asFile = await attempt({ type: 'file', asset_id: text.id });
    expect(asFile.status).toBe(201);
    await settleRun(t, asFile.body.id);
    const both = await attempt({ type: 'image', asset_id: text.id, data: PNG.toString('base64') });
    expect(both.status).toBe(400);
    expect(both.body.error.details.field).toBe('input.content[1].data');
    const noId = await attempt({ type: 'file' });
    expect(noId.status).toBe(400);

    // Inbox entries are checked the same way.
    const thread = asFile.body.thread_id as string;
    const entry = await t.rest('POST', `/api/v1/threads/${thread}/inbox`, {
      body: { payload: { content: [{ type: 'image', asset_id: retired.id }] } },
    });
    expect(entry.status, JSON.stringify(entry.body)).toBe(409);
    expect(entry.body.error.details.field).toBe('payload.content[0].asset_id');
  });
});
