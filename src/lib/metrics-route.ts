// GET /metrics on the service's port: the operator metrics, for a caller bearing METRICS_TOKEN or —
// with METRICS_ADMIN_KEYS on — a credential with `admin` in its workspace. With neither configured
// the endpoint does not exist (404), so a deployment exposes nothing it did not ask for. Admin keys
// are opt-in because the figures are the whole process's: their labels name other workspaces'
// agents and models. A scraper that cannot send credentials uses METRICS_PORT (metrics-server.ts).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from './metrics.js';
import { isAppError } from './errors.js';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether a caller's credential has `admin` in its workspace; throws the credential's error when it is not valid. */
export type AdminCheck = (authorization: string | undefined, workspaceHeader: string | undefined) => Promise<boolean>;

/** Answers the exposition (shared with the metrics port). */
export async function sendMetrics(metrics: Metrics, res: Response): Promise<void> {
  const text = await metrics.render();
  res.setHeader('Cache-Control', 'no-store');
  res.type('text/plain; version=0.0.4; charset=utf-8').send(text);
}

export function metricsHandler(metrics: Metrics, token: string | null, adminCheck: AdminCheck | null) {
  const expected = token ? digest(token) : null;
  const refuse = (res: Response, status: 401 | 403) => {
    if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    res.status(status).json({
      error:
        status === 401
          ? { code: 'unauthenticated', message: 'the metrics endpoint needs Authorization: Bearer <METRICS_TOKEN> or an admin credential' }
          : { code: 'permission_denied', message: 'the metrics endpoint needs a credential with the admin permission' },
    });
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (!expected && !adminCheck) {
        res.status(404).json({
          error: { code: 'not_found', message: 'the metrics endpoint is off: set METRICS_TOKEN (or METRICS_ADMIN_KEYS) to turn it on' },
        });
        return;
      }
      const authorization = req.get('authorization');
      const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
      // Compared as digests of equal length, in constant time.
      if (presented && expected && timingSafeEqual(digest(presented), expected)) return await sendMetrics(metrics, res);
      if (!presented || !adminCheck) return refuse(res, 401);
      let admin: boolean;
      try {
        admin = await adminCheck(authorization, req.get('x-workspace-id'));
      } catch (error) {
        // Not a valid credential (unknown, expired, revoked, a malformed X-Workspace-ID): 401 as
        // without one; a database that cannot be reached is the error handler's 503.
        if (!isAppError(error) || error.code === 'unavailable') throw error;
        return refuse(res, 401);
      }
      if (!admin) return refuse(res, 403);
      await sendMetrics(metrics, res);
    } catch (error) {
      next(error);
    }
  };
}
