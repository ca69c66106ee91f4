// A webhook receiver on loopback: a real HTTP server that keeps every request it gets (headers and
// the exact body bytes, which the Standard Webhooks signature covers) and answers as the test plans:
// a status, or no answer at all (a hung receiver, for time-outs). Tests wait on requests (`next`,
// `waitFor`), never on time.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedHook {
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: any };
}

/**
 * What the receiver does with the next request: answer `status`, `hang` (never answer), or wait for
 * `gate` and answer what it resolves to (the test decides when the attempt ends).
 */
export type Answer = { status: number; body?: string };
export type Plan = Answer | { hang: true } | { gate: Promise<Answer> };

export interface WebhookReceiver {
  url: string;
  received: ReceivedHook[];
  /** Answers for the next requests, in order; when empty, `fallback` answers. */
  plan: Plan[];
  fallback: Plan;
  /** The first request (already received or still to come) that `match` accepts. */
  waitFor(match: (hook: ReceivedHook) => boolean, what?: string, timeoutMs?: number): Promise<ReceivedHook>;
  /** The `count` requests that `match` accepts, once they have all arrived. */
  waitForCount(match: (hook: ReceivedHook) => boolean, count: number, what?: string, timeoutMs?: number): Promise<ReceivedHook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const waiters: (() => void)[] = [];
  const hung: ServerResponse[] = [];
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = {
    received: [],
    plan: [],
    fallback: { status: 204 },
    async waitFor(match, what = 'a webhook', timeoutMs = 30_000) {
      return (await receiver.waitForCount(match, 1, what, timeoutMs))[0]!;
    },
    waitForCount(match, count, what = 'webhooks', timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = receiver.received.filter(match);
          if (found.length < count) return false;
          clearTimeout(timer);
          resolve(found.slice(0, count));
          return true;
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`timed out waiting for ${count} × ${what}; received: ${receiver.received.map((r) => r.json.type).join(', ')}`));
        }, timeoutMs);
        const waiter = () => {
          if (check()) waiters.splice(waiters.indexOf(waiter), 1);
        };
        if (!check()) waiters.push(waiter);
      });
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers[name] = value;
      const plan = receiver.plan.shift() ?? receiver.fallback;
      // Recorded before the answer, so a test that sees the request can count on its attempt being under way.
      receiver.received.push({ headers, body, json: JSON.parse(body) });
      for (const waiter of [...waiters]) waiter();
      if ('hang' in plan) {
        hung.push(res);
        return;
      }
      if ('gate' in plan) {
        hung.push(res);
        void plan.gate.then((answer) => {
          hung.splice(hung.indexOf(res), 1);
          res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
        });
        return;
      }
      res.writeHead(plan.status, { 'content-type': 'text/plain' }).end(plan.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Verifies a received webhook with the Standard Webhooks library (throws when no signature matches). */
export function verifyHook(secret: string, hook: ReceivedHook): unknown {
  return new Webhook(secret).verify(hook.body, hook.headers);
}
