// GET /metrics: the operator metrics, guarded by METRICS_TOKEN. Without a token configured the endpoint
// does not exist (404), so a deployment exposes nothing it did not ask for; with one, a caller must send
// `Authorization: Bearer <token>` (401 otherwise). Workspace API keys do not open it: the metrics are
// the whole process's, not a workspace's.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Metrics } from './metrics.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function metricsHandler(metrics: Metrics, token: string | null) {
  const expected = token ? digest(token) : null;
  return (req: Request, res: Response) => {
    if (!expected) {
      res.status(404).json({ error: { code: 'not_found', message: 'the metrics endpoint is off: set METRICS_TOKEN to turn it on' } });
      return;
    }
    const presented = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    // Compared as digests of equal length, in constant time.
    if (!presented || !timingSafeEqual(digest(presented), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res
        .status(401)
        .json({ error: { code: 'unauthenticated', message: 'the metrics endpoint needs Authorization: Bearer <METRICS_TOKEN>' } });
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render());
  };
}
