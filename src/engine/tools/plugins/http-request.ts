// The `http_request` plugin: one tool that sends an HTTP request (method, url, headers, body) and
// returns the status, the useful headers and the body — text as text, anything else base64. Where it
// may go is bounded by the run's `configuration.allowed_hosts` and the deployment's endpoint policy
// (every redirect hop too); the response by `max_response_bytes`, the exchange by `timeout_seconds`.
// A non-2xx status is a result (the model reads it); an unreachable host, a refused URL or a timeout
// is an error.
import type { JSONSchema7 } from '@ai-sdk/provider';
import { HTTP_METHODS, HTTP_REQUEST_LIMITS, HttpRequestConfig } from '../../../features/agents/documents/plugins.js';
import { readDocument } from '../../../lib/json-documents.js';
import { outboundFetch } from '../outbound.js';
import type { PluginTools } from './types.js';

/** Headers a caller may not set: the client computes them, or they would break the exchange's bounds. */
const FORBIDDEN_HEADER = /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
/** Response headers the model gets (the rest is noise for it). */
const KEPT_HEADERS = ['content-type', 'content-length', 'location', 'etag', 'last-modified', 'retry-after'];

const isText = (contentType: string | null) =>
  !contentType || /^text\/|[/+](json|xml|javascript|x-www-form-urlencoded|csv|yaml)\b/i.test(contentType);

function requestHeaders(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error('headers must map header names to string values');
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (!HEADER_NAME.test(name) || FORBIDDEN_HEADER.test(name)) throw new Error(`the header ${name.slice(0, 100)} may not be set`);
    if (typeof header !== 'string' || /[\r\n]/.test(header) || header.length > 8192)
      throw new Error(`the header ${name} must be a single-line string of at most 8192 characters`);
    headers[name] = header;
  }
  return headers;
}

/** Undici's "fetch failed" says nothing: its cause (refused connection, DNS, TLS) does. */
function networkError(error: unknown): unknown {
  const cause = (error as { cause?: { message?: string } }).cause;
  if (!(error instanceof TypeError) || !cause?.message) return error;
  return new Error(`${error.message}: ${cause.message}`, { cause: error });
}

/**
 * The arguments with `method` in upper case: models send `"get"` as often as `"GET"`, and HTTP methods
 * are upper case by convention (the configured `methods` are).
 */
export function upperCaseMethod(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return input;
  const { method } = input as { method?: unknown };
  if (typeof method !== 'string' || method === method.toUpperCase()) return input;
  return { ...input, method: method.toUpperCase() };
}

export const httpRequestPlugin: PluginTools = ({ deps, run, instance }) => {
  const config = readDocument(HttpRequestConfig, instance.config ?? {}, 'agent configuration plugins[].config');
  const methods: string[] = config.methods ?? [...HTTP_METHODS];
  const maxResponseBytes = config.max_response_bytes ?? HTTP_REQUEST_LIMITS.maxResponseBytes.default;
  const timeoutMs = (config.timeout_seconds ?? HTTP_REQUEST_LIMITS.timeoutSeconds.default) * 1000;
  const allowedHosts = run.options.configuration?.allowed_hosts;
  const inputSchema: JSONSchema7 = {
    type: 'object',
    properties: {
      method: { type: 'string', enum: methods },
      url: { type: 'string', description: 'An absolute http(s) URL.' },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
      body: { type: 'string', description: 'The request body (for POST, PUT, PATCH).' },
    },
    required: ['method', 'url'],
  };
  const hosts = allowedHosts ? ` Allowed hosts: ${allowedHosts.join(', ') || 'none'}.` : '';
  return [
    {
      name: 'http_request',
      description: [
        `Send an HTTP request and get the status, headers and body (at most ${maxResponseBytes} bytes are read).${hosts}`,
        config.description,
      ]
        .filter(Boolean)
        .join('\n\n'),
      inputSchema,
      canonicalInput: upperCaseMethod,
      execution: {
        kind: 'server',
        execute: async (args, { signal }) => {
          const method = String(args.method ?? 'GET').toUpperCase();
          if (!methods.includes(method))
            throw new Error(`the method ${method.slice(0, 20)} is not allowed (allowed: ${methods.join(', ')})`);
          if (typeof args.url !== 'string') throw new Error('url must be a string');
          const body = args.body === undefined || args.body === null ? undefined : String(args.body);
          if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new Error(`a ${method} request has no body`);
          if (body !== undefined && Buffer.byteLength(body) > HTTP_REQUEST_LIMITS.maxRequestBodyBytes)
            throw new Error(`the body is larger than ${HTTP_REQUEST_LIMITS.maxRequestBodyBytes} bytes`);
          let response;
          try {
            response = await outboundFetch(
              deps,
              { method, url: args.url, headers: requestHeaders(args.headers), body },
              { maxResponseBytes, timeoutMs, allowedHosts },
              signal,
            );
          } catch (error) {
            if (signal.aborted) throw error;
            throw networkError(error);
          }
          const contentType = response.headers.get('content-type');
          const headers: Record<string, string> = {};
          for (const name of KEPT_HEADERS) {
            const value = response.headers.get(name);
            if (value !== null) headers[name] = value;
          }
          const text = isText(contentType);
          return {
            status: response.status,
            url: response.url,
            headers,
            body: text ? response.body.toString('utf8') : response.body.toString('base64'),
            ...(text ? {} : { body_encoding: 'base64' }),
            truncated: response.truncated,
          };
        },
      },
    },
  ];
};
