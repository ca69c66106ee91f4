// Large tool results. A server tool's result up to TOOL_OUTPUT_INLINE_BYTES (as JSON text, or the
// string itself) goes to the model and into its `tool_result` item whole. A larger one is stored in
// the item's `content_refs.result` (at most TOOL_OUTPUT_STORED_BYTES of it; the item's
// `content.result` keeps a preview) and the model gets the first TOOL_OUTPUT_MODEL_PREVIEW characters
// with a note naming the ref: it reads on with `read_tool_output`, clients with `runItemContent`.
import type { JSONSchema7 } from '@ai-sdk/provider';
import { pageOf, readItemContent } from '../../features/runs/run-item-content.js';
import type { RunTool, ToolSource } from './tool.js';

export const TOOL_OUTPUT_INLINE_BYTES = 16 * 1024;
export const TOOL_OUTPUT_MODEL_PREVIEW = 8 * 1024;
export const TOOL_OUTPUT_STORED_BYTES = 4 * 1024 * 1024;
/** The largest page `read_tool_output` returns, in characters. */
export const TOOL_OUTPUT_READ_LIMIT = 8 * 1024;
export const READ_TOOL_OUTPUT = 'read_tool_output';

export type PresentedOutput =
  /** Small: the value itself, for the model and the item. */
  | { kind: 'inline'; value: unknown }
  /** Large: the text to store, its media type and size, and what the model is told. */
  | { kind: 'stored'; text: string; mediaType: string; sizeBytes: number; cut: boolean };

/** How a result is kept: inline, or stored with a preview. */
export function presentOutput(value: unknown): PresentedOutput {
  const isText = typeof value === 'string';
  const text = isText ? value : (JSON.stringify(value ?? null) ?? 'null');
  const sizeBytes = Buffer.byteLength(text);
  if (sizeBytes <= TOOL_OUTPUT_INLINE_BYTES) return { kind: 'inline', value };
  const mediaType = isText ? 'text/plain; charset=utf-8' : 'application/json';
  if (sizeBytes <= TOOL_OUTPUT_STORED_BYTES) return { kind: 'stored', text, mediaType, sizeBytes, cut: false };
  // Cut on a character boundary: the decoder drops a sequence split at the end.
  const stored = Buffer.from(text)
    .subarray(0, TOOL_OUTPUT_STORED_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { kind: 'stored', text: stored, mediaType, sizeBytes, cut: true };
}

/** What the model reads instead of a large result: a note naming the ref, then the first characters. */
export function modelPreview(refId: string, stored: Extract<PresentedOutput, { kind: 'stored' }>): string {
  const shown = Math.min(stored.text.length, TOOL_OUTPUT_MODEL_PREVIEW);
  const cut = stored.cut ? ` Only its first ${TOOL_OUTPUT_STORED_BYTES} bytes were kept.` : '';
  return (
    `[The result is ${stored.sizeBytes} bytes (${stored.mediaType}); the first ${shown} of ${stored.text.length} characters follow.${cut} ` +
    `Read the rest with ${READ_TOOL_OUTPUT} {"ref": "${refId}", "offset": ${shown}}.]\n` +
    stored.text.slice(0, shown)
  );
}

const READ_SCHEMA: JSONSchema7 = {
  type: 'object',
  properties: {
    ref: { type: 'string', description: 'The ref named in the truncated result.' },
    offset: { type: 'integer', minimum: 0, description: 'The character to start at (default 0).' },
    limit: { type: 'integer', minimum: 1, maximum: TOOL_OUTPUT_READ_LIMIT, description: `At most ${TOOL_OUTPUT_READ_LIMIT} characters.` },
  },
  required: ['ref'],
};

/**
 * `read_tool_output`: pages of a large result stored earlier in this thread. Offered only when the
 * run has another server tool (nothing else produces a stored result the model is told about).
 */
export const toolOutputReader: ToolSource = ({ call, run, items, earlier }): RunTool[] => {
  if (!earlier?.some((runTool) => runTool.execution.kind === 'server')) return [];
  return [
    {
      name: READ_TOOL_OUTPUT,
      namespace: 'run',
      description: 'Read more of a tool result that was too large to show whole: its ref, from an offset, a page at a time.',
      inputSchema: READ_SCHEMA,
      permission: 'allow',
      offered: true,
      inlineResult: true,
      skipReview: true,
      execution: {
        kind: 'server',
        execute: async (args) => {
          const ref = String(args.ref ?? '');
          const offset = Number(args.offset ?? 0);
          const limit = Math.min(Number(args.limit ?? TOOL_OUTPUT_READ_LIMIT), TOOL_OUTPUT_READ_LIMIT);
          // This attempt's items may not be written yet; earlier runs' are.
          const own = items?.findRef(ref);
          if (own != null) {
            if (!Number.isInteger(offset) || offset < 0) throw new Error('offset must be a non-negative integer');
            const page = pageOf(own, offset, limit);
            return { ref, offset, total_chars: own.length, text: page.text, next_offset: page.nextOffset };
          }
          const page = await readItemContent(call, ref, { offset, limit }, run.threadId);
          return { ref, offset, total_chars: page.totalChars, text: page.text, next_offset: page.nextOffset };
        },
      },
    },
  ];
};
