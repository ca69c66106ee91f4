// Every HTTP request counted by its route template, never its path: the REST route table's and
// express's templates (`/api/v1/runs/:run_id`), `/graphql:<operation type>` for GraphQL over HTTP
// (the type filled in by src/graphql/operation-label.ts), and `other` for anything no route matched
// (unknown paths, the console's files), so callers cannot grow the label set.
import type { NextFunction, Request, Response } from 'express';
import { observeHttpRequest, OTHER } from './service-metrics.js';

/** Where a request's route label is kept until its answer finishes. */
export interface HttpRouteSlot {
  /** Set by the /graphql handler: the operation type, once Yoga knows it. */
  operation?: string;
  graphql?: boolean;
}

const SLOT = Symbol('http-route');

export function httpRouteSlot(res: Response): HttpRouteSlot {
  const holder = res as Response & { [SLOT]?: HttpRouteSlot };
  return (holder[SLOT] ??= {});
}

export function routeLabel(req: Request, slot: HttpRouteSlot): string {
  if (slot.graphql) return slot.operation ? `/graphql:${slot.operation}` : '/graphql';
  const template = (req.route as { path?: unknown } | undefined)?.path;
  return typeof template === 'string' ? `${req.baseUrl}${template}` : OTHER;
}

/** Counts each request when its answer is finished (or its connection closed first). */
export function httpMetrics() {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const slot = httpRouteSlot(res);
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      observeHttpRequest(req.method, routeLabel(req, slot), res.statusCode, (performance.now() - started) / 1000);
    };
    res.once('finish', count);
    res.once('close', count);
    next();
  };
}
