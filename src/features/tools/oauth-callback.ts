// GET /oauth/mcp/callback: where an MCP server's authorization server sends the browser back. It
// carries no credential of the service — the single-use `state` is what ties it to the connection and
// to whoever started the authorization. Success returns the browser to the connection's console page
// (`?oauth=authorized`), or answers JSON where the console is off; failures answer the error body.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isAppError, retryAfterFor, statusForCode } from '../../lib/errors.js';
import type { Deps } from '../../services/deps.js';
import { completeConnectionAuthorization } from './connection-oauth.js';

export function oauthCallbackHandler(deps: Deps): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // The page must not be cached, nor its address (with the code) passed on to other sites.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    completeConnectionAuthorization(deps, req.get('x-request-id') ?? null, req.query).then(
      ({ connectionId }) => {
        if (deps.config.consoleEnabled) res.redirect(303, `/connections/${encodeURIComponent(connectionId)}?oauth=authorized`);
        else res.json({ connection_id: connectionId, oauth_status: 'authorized' });
      },
      (error: unknown) => {
        // The API's error body (anything else is the app's to report as internal).
        if (!isAppError(error)) return next(error);
        const retryAfter = retryAfterFor(error.code);
        if (retryAfter) res.setHeader('Retry-After', retryAfter);
        res.status(statusForCode(error.code)).json({
          error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
        });
      },
    );
  };
}
