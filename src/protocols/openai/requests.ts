// A Responses request read into what the adapter does with it; anything it cannot honour is refused
// (400, naming the member) rather than silently changing the meaning of the request.
import { BadRequest } from './errors.js';

export interface ResponsesRequest {
  model: string;
  /** The user messages' text, joined (null: none). */
  text: string | null;
  /** The request's `instructions` and its system/developer messages, added after the agent's. */
  instructions: string | null;
  previousResponseId: string | null;
  /** call_id → output, from `function_call_output` items. */
  outputs: Map<string, string>;
  stream: boolean;
  background: boolean;
}

/**
 * Members accepted and not acted on: sampling and bookkeeping parameters the agent's configuration
 * decides, and `tools`/`tool_choice` (the agent's tools apply; its client tools come back as function
 * calls). Named in docs/protocols/openai.md.
 */
const IGNORED = new Set([
  'store',
  'metadata',
  'temperature',
  'top_p',
  'max_output_tokens',
  'parallel_tool_calls',
  'tools',
  'tool_choice',
  'truncation',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'service_tier',
  'stream_options',
  'include',
  'reasoning',
  'text',
]);
const KNOWN = new Set(['model', 'input', 'instructions', 'previous_response_id', 'stream', 'background']);

export function object(value: unknown, param: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequest(`${param} must be an object`, param);
  return value as Record<string, unknown>;
}

export function optionalString(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new BadRequest(`${name} must be a string`, name);
  return value;
}

export function optionalBoolean(body: Record<string, unknown>, name: string): boolean {
  const value = body[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new BadRequest(`${name} must be a boolean`, name);
  return value;
}

const MAX_MODEL_CHARS = 256;

export function requiredModel(body: Record<string, unknown>): string {
  const model = optionalString(body, 'model');
  if (!model) throw new BadRequest('model is required: an agent id or name (GET /openai/v1/models lists them)', 'model');
  // Longer than any agent name or id: refused here rather than searched for.
  if (model.length > MAX_MODEL_CHARS) throw new BadRequest(`model is at most ${MAX_MODEL_CHARS} characters`, 'model');
  return model;
}

/** The text of a message's content: a string, or text parts (`input_text`, `output_text`, `text`). */
export function contentText(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new BadRequest(`${param} must be a string or a list of content parts`, param);
  return content
    .map((part, index) => {
      const p = object(part, `${param}[${index}]`);
      if ((p.type === 'input_text' || p.type === 'output_text' || p.type === 'text') && typeof p.text === 'string') return p.text;
      throw new BadRequest(
        `${param}[${index}]: only text parts are supported (got ${JSON.stringify(String(p.type).slice(0, 50))})`,
        `${param}[${index}].type`,
      );
    })
    .join('');
}

export function parseResponsesRequest(raw: unknown): ResponsesRequest {
  const body = object(raw, 'body');
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key) && !IGNORED.has(key))
      throw new BadRequest(`unsupported parameter ${JSON.stringify(key.slice(0, 100))}`, key.slice(0, 100), 'unsupported_parameter');
  }
  const model = requiredModel(body);
  const texts: string[] = [];
  const instructions: string[] = [];
  const extra = optionalString(body, 'instructions');
  if (extra) instructions.push(extra);
  const outputs = new Map<string, string>();
  const input = body.input;
  if (typeof input === 'string') texts.push(input);
  else if (Array.isArray(input)) {
    input.forEach((entry, index) => {
      const param = `input[${index}]`;
      const item = object(entry, param);
      if (item.type === 'function_call_output') {
        if (typeof item.call_id !== 'string' || !item.call_id)
          throw new BadRequest(`${param}.call_id must be a string`, `${param}.call_id`);
        const output = typeof item.output === 'string' ? item.output : contentText(item.output, `${param}.output`);
        outputs.set(item.call_id, output);
        return;
      }
      if (item.type !== undefined && item.type !== 'message') {
        throw new BadRequest(
          `${param}: input items of type ${JSON.stringify(String(item.type).slice(0, 50))} are not supported`,
          `${param}.type`,
        );
      }
      const text = contentText(item.content, `${param}.content`);
      if (item.role === 'user') texts.push(text);
      else if (item.role === 'system' || item.role === 'developer') instructions.push(text);
      else
        throw new BadRequest(
          `${param}.role must be user, system or developer (the thread keeps the assistant's messages)`,
          `${param}.role`,
        );
    });
  } else if (input !== undefined) throw new BadRequest('input must be a string or a list of input items', 'input');
  const text = texts.filter((t) => t.trim() !== '').join('\n\n');
  return {
    model,
    text: text || null,
    instructions: instructions.length ? instructions.join('\n\n') : null,
    previousResponseId: optionalString(body, 'previous_response_id'),
    outputs,
    stream: optionalBoolean(body, 'stream'),
    background: optionalBoolean(body, 'background'),
  };
}
