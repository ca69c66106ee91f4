// Compaction: the oldest part of a conversation, summarised by a model into a text that stands for
// it in later requests. What to summarise (`chooseCut`) never separates a tool call from its result;
// the summary is asked for with one fixed prompt (SUMMARY_INSTRUCTIONS, documented in
// docs/api/context.md) over a plain-text transcript, so any model can write it, tools or not.
import { generateText, type ModelMessage } from 'ai';
import type { RefusalRetry } from '../provider-wait-item.js';
import type { ResolvedModel } from '../models.js';
import { tokensOf } from '../usage.js';
import { isContextOverflow } from './overflow.js';
import { cutText } from './view.js';

export const SUMMARY_INSTRUCTIONS = [
  'You are compacting the conversation of an AI agent so it can continue with less context.',
  'Write a summary that will replace the messages you are given. Keep, verbatim where they were stated:',
  "the user's goals, requests, preferences and constraints; every fact, name, number, identifier, code word,",
  'file path, URL and decision; what the agent did (tools called and, briefly, what they returned) and what it',
  'concluded; open questions and the next steps. When an earlier summary is given, fold it in: the new summary',
  'replaces both. Leave out pleasantries and repetition. Write plain notes in the language of the conversation,',
  'without addressing the user, and do not continue the conversation.',
].join(' ');

/** The first line of the message a summary is sent as (what the model reads in place of the messages). */
export const SUMMARY_HEADING = 'Summary of the earlier conversation (its messages are not repeated here):';

/** The message that stands for the summarised messages in a request. */
export function summaryMessage(summary: string): ModelMessage {
  return { role: 'user', content: `${SUMMARY_HEADING}\n\n${summary}` };
}

/**
 * Where the part to keep starts: the first index after `from` whose messages up to the end fit in
 * `keepTokens`, and where no tool call is separated from its result (a `tool` message is never the
 * first one kept). At least the last message is kept. Null: nothing can be summarised.
 */
export function chooseCut(
  messages: readonly ModelMessage[],
  from: number,
  tokensOf: (index: number) => number,
  keepTokens: number,
): number | null {
  let kept = 0;
  let cut: number | null = null;
  for (let index = messages.length - 1; index > from; index -= 1) {
    kept += tokensOf(index);
    if (messages[index]!.role === 'tool') continue;
    // The last message is always kept, however large (it is cut instead: view.ts).
    if (cut === null || kept <= keepTokens) cut = index;
    if (kept > keepTokens) break;
  }
  return cut;
}

/** Text of a message part for the transcript. */
function partText(part: unknown, resultLimit: number): string {
  const p = part as { type: string; text?: string; toolName?: string; input?: unknown; output?: { type: string; value: unknown } };
  switch (p.type) {
    case 'text':
      return p.text ?? '';
    case 'reasoning':
      return '';
    case 'image':
      return '[an image]';
    case 'file':
      return '[a file]';
    case 'tool-call':
      return `[called ${p.toolName} with ${cutText(JSON.stringify(p.input ?? {}), resultLimit)}]`;
    case 'tool-result': {
      const value = p.output?.value;
      const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
      const failed = p.output?.type === 'error-text' || p.output?.type === 'error-json';
      return `[${p.toolName} ${failed ? 'failed' : 'returned'}: ${cutText(text, resultLimit)}]`;
    }
    default:
      return '';
  }
}

const SPEAKER: Record<string, string> = { user: 'User', assistant: 'Agent', tool: 'Tool', system: 'System' };

/** The messages as a plain-text transcript, one paragraph per message, long texts cut to `limit` characters. */
export function transcript(messages: readonly ModelMessage[], limit: number): string {
  return messages
    .map((message) => {
      const body =
        typeof message.content === 'string'
          ? message.content
          : message.content
              .map((part) => partText(part, Math.min(limit, 2_000)))
              .filter(Boolean)
              .join('\n');
      return `${SPEAKER[message.role] ?? message.role}: ${cutText(body, limit)}`;
    })
    .join('\n\n');
}

export interface SummaryRequest {
  model: ResolvedModel;
  previous: string | null;
  messages: readonly ModelMessage[];
  /** Characters of transcript one summarisation request may carry. */
  chunkChars: number;
  maxOutputTokens: number;
  signal: AbortSignal;
  /** Told each request's usage (the run counts them). */
  onUsage: (usage: ReturnType<typeof tokensOf>) => void;
  /** Told of a request refused for its length (it counts as a request too). */
  onRefused?: () => void;
  /** Makes each request, waiting out the provider's refusals for load (provider-wait-item.ts); absent: asked once. */
  retry?: RefusalRetry;
}

/**
 * Summarises `messages` (folding in `previous`). A transcript longer than one request may carry is
 * summarised a chunk at a time, each folding in the summary so far.
 */
export async function summarise(request: SummaryRequest): Promise<string> {
  // A model that refuses a chunk for its length gets smaller chunks (the window was overestimated).
  for (let chunkChars = request.chunkChars; ; chunkChars = Math.floor(chunkChars / 2)) {
    try {
      return await summariseInChunks({ ...request, chunkChars });
    } catch (error) {
      if (!isContextOverflow(error) || chunkChars < 1_000) throw error;
      request.onRefused?.();
    }
  }
}

async function summariseInChunks(request: SummaryRequest): Promise<string> {
  const chunks: string[] = [];
  let current = '';
  for (const message of request.messages) {
    const text = transcript([message], request.chunkChars);
    if (current && current.length + text.length + 2 > request.chunkChars) {
      chunks.push(current);
      current = '';
    }
    current = current ? `${current}\n\n${text}` : text;
  }
  if (current) chunks.push(current);
  let summary = request.previous;
  for (const chunk of chunks) {
    const prompt = [
      summary ? `The summary so far:\n<summary>\n${summary}\n</summary>\n` : '',
      `The messages to ${summary ? 'fold into the summary' : 'summarise'}:\n<messages>\n${chunk}\n</messages>`,
    ].join('\n');
    const ask = () =>
      generateText({
        model: request.model.model,
        instructions: SUMMARY_INSTRUCTIONS,
        prompt,
        maxOutputTokens: request.maxOutputTokens,
        temperature: 0,
        maxRetries: 0,
        abortSignal: request.signal,
      });
    const result = request.retry ? await request.retry(request.model, ask) : await ask();
    request.onUsage(tokensOf(result.usage));
    const text = result.text.trim();
    if (!text) throw new Error('the model wrote an empty summary');
    summary = text;
  }
  return summary ?? '';
}
