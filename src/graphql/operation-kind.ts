// Which kind of operation a GraphQL-over-HTTP request asks for, read before Yoga sees it: the rate
// limit counts queries and mutations but not subscriptions (a long-lived stream is one request that
// would otherwise be refused for what it already is), so the HTTP layer must tell them apart.
import { getOperationAST, parse, type OperationTypeNode } from 'graphql';

/** Only a request that accepts a stream can be a subscription over HTTP (SSE or multipart). */
export function acceptsStream(accept: string | undefined): boolean {
  return /text\/event-stream|multipart\/mixed/i.test(accept ?? '');
}

/**
 * The operation the request's document and operation name select, or null when that cannot be told
 * (no document, a syntax error, an unknown operation name): Yoga answers those itself.
 */
export function operationKind(query: unknown, operationName: unknown, maxTokens: number): OperationTypeNode | null {
  if (typeof query !== 'string') return null;
  try {
    const document = parse(query, { maxTokens, noLocation: true });
    return getOperationAST(document, typeof operationName === 'string' ? operationName : undefined)?.operation ?? null;
  } catch {
    return null;
  }
}

/** The `query` and `operationName` of a GraphQL-over-HTTP request: the query string (GET) or the JSON body (POST). */
export function requestParams(method: string, query: Record<string, unknown>, body: unknown): { query?: unknown; operationName?: unknown } {
  if (method === 'GET') return { query: query.query, operationName: query.operationName };
  if (!Buffer.isBuffer(body) || body.length === 0) return {};
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as { query?: unknown; operationName?: unknown }) : {};
  } catch {
    return {};
  }
}
