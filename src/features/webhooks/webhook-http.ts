// One webhook request on the wire: node:http(s) rather than fetch, because the connection must go
// through the outbound policy's `lookup` (checked on the address actually connected to),
// and the attempt is bounded as a whole — connecting, sending, the answer and its body — with at
// most `maxBytes` of the body read before the connection is closed. Redirects are not followed.
import http from 'node:http';
import https from 'node:https';
import type { OutboundPolicy } from '../../lib/outbound-policy.js';

export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}

export interface WebhookAnswer {
  status: number;
  body: string;
}

export function postWebhook(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; maxBytes: number; policy: OutboundPolicy },
): Promise<WebhookAnswer> {
  // A literal host is checked here (a socket does not look an address up); a name, by the lookup.
  const refusal = options.policy.urlRefusal(url);
  if (refusal) return Promise.reject(refusal);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (error: Error | null, answer?: WebhookAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // The policy's lookup checks every connection. Node's global agent, not the policy's pool: it drops
        // idle sockets before a receiver's keep-alive timeout does, where a pool that kept them handed a
        // delivery a socket its receiver had closed (ECONNRESET, then a retry seconds later).
        lookup: options.policy.lookup as never,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () =>
          done(null, { status: response.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, options.maxBytes).toString('utf8') });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough read: the rest is not waited for (the connection is closed).
          if (size >= options.maxBytes) finish();
        });
        response.on('end', finish);
        response.on('error', (error) => done(error));
        response.on('close', finish);
      },
    );
    const timer = setTimeout(() => done(new AttemptTimeoutError(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('error', (error) => done(error));
    request.end(body);
  });
}
