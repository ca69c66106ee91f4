// A loopback OpenAI-compatible chat-completions server whose answers the bench drives: every
// streaming request is held open, and the bench writes a chunk to all held streams at once (the
// moment it does is the chunk's birth time for chunk-to-subscriber latency), then ends them.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Rest } from './clients.js';

export const LOOPBACK_API_KEY = 'sk-bench-loopback';

export interface LoopbackModel {
  url: string;
  /** Resolves once `count` streams are held. */
  held(count: number): Promise<void>;
  /** Writes `text` as one content chunk to every held stream. */
  send(text: string): void;
  /** Ends every held stream (finish_reason stop). */
  finish(): void;
  close(): Promise<void>;
}

export function startLoopbackModel(): Promise<LoopbackModel> {
  let streams: ServerResponse[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];
  const chunk = (res: ServerResponse, delta: unknown, finish: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'loop', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'loop' }] }));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      chunk(res, { role: 'assistant', content: '' });
      streams.push(res);
      waiters = waiters.filter((waiter) => (streams.length >= waiter.count ? (waiter.resolve(), false) : true));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        held: (count) => new Promise<void>((done) => (streams.length >= count ? done() : waiters.push({ count, resolve: done }))),
        send: (text) => {
          for (const res of streams) chunk(res, { content: text });
        },
        finish: () => {
          for (const res of streams) {
            chunk(res, {}, 'stop');
            res.end('data: [DONE]\n\n');
          }
          streams = [];
        },
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** A provider and model for the loopback model (`loop`) and an agent on it: the agent's id. */
export async function addLoopbackAgent(rest: Rest, loopback: LoopbackModel, agentName: string): Promise<string> {
  const provider = await rest.ok('POST', '/api/v1/model-providers', {
    type: 'openai_compatible',
    name: 'bench loopback',
    config: { base_url: loopback.url },
    credential: { api_key: LOOPBACK_API_KEY },
  });
  await rest.ok('POST', '/api/v1/models', { key: 'loop', provider_id: provider.id, provider_model: 'loop' });
  return (await rest.ok('POST', '/api/v1/agents', { name: agentName, config: { model: 'loop' } })).id as string;
}
