// Model messages the turn loop builds: the run's starting messages (history, then the input or the
// answers a resume brings), tool results, and the text of a message content.
import type { FilePart, ModelMessage, TextPart, ToolResultPart, UserContent } from 'ai';
import type { Run } from '../services/rows.js';
import type { PendingEntry, RunPending } from '../features/runs/run-lifecycle.js';
import {
  isAssetPart,
  mediaContentOf,
  type MediaPart,
  type MessagePart,
  type TextPart as InputTextPart,
} from '../features/runs/run-input.js';
import { assetRef } from './asset-content.js';
import { imageFilePart } from './stored-history.js';
import { errorResult, jsonResult, toldNow, USER_DENIAL } from './tool-call-record.js';

/** The text parts of a message content (`{content: [{type: 'text', text}, …]}`), joined by new lines. */
export function textOf(message: unknown): string {
  const content = (message as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part: { type?: unknown }) => part?.type === 'text')
    .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
    .join('\n');
}

/** The parts of a message content (`{content: [...]}`); none when it has no list. */
export function partsOf(message: unknown): MessagePart[] {
  const content = (message as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) ? (content as MessagePart[]) : [];
}

/**
 * A user message's content for the model: its text as one string when it is text only (as it
 * always was), else its parts in order — images, audio and video as file parts, the bytes as
 * base64 with their media type (so the thread's history keeps them as JSON). Whether the
 * model gets them or a description is decided per request (media-understanding.ts).
 */
export function userContent(message: unknown): UserContent {
  const parts = partsOf(message);
  if (parts.every((part) => part.type === 'text')) return textOf(message);
  return parts.map((part): TextPart | FilePart => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    // An asset stays a reference in the conversation (and the thread's history); its bytes are read
    // for each model request (asset-content.ts).
    const data = isAssetPart(part) ? assetRef(part.asset_id) : part.data;
    if (part.type === 'image') return imageFilePart(data, part.media_type);
    return { type: 'file', data, mediaType: part.media_type ?? 'application/octet-stream' };
  });
}

/**
 * A client tool's returned value for the model: a message content with media (`{content: [text and
 * media parts]}`) becomes a content result with the media as inline file items (described per request for
 * a model that cannot read them: media-understanding.ts); any other value is JSON.
 */
export function clientResult(toolCallId: string, toolName: string, value: unknown): ToolResultPart {
  // Client results carry their media inline (mediaContentOf accepts no asset parts).
  const parts = mediaContentOf(value) as (InputTextPart | MediaPart)[] | null;
  if (!parts) return jsonResult(toolCallId, toolName, value);
  return {
    type: 'tool-result',
    toolCallId,
    toolName,
    output: {
      type: 'content',
      value: parts.map((part) =>
        part.type === 'text'
          ? { type: 'text' as const, text: part.text }
          : { type: 'file' as const, mediaType: part.media_type, data: { type: 'data' as const, data: part.data } },
      ),
    },
  };
}

/** What a waiting run was waiting for (its `pending` column). */
export type Pending = RunPending;

/** The answers a resume brings (its `resume` column, checked by services/resume.ts). */
interface ResumeAnswers {
  approvals?: Record<string, { action: string }>;
  calls?: Record<string, { status: string; value?: unknown }>;
}

/**
 * The messages this run starts from: the thread's committed history, then what this run brings —
 * its input, or for a resume the answers to what its parent was waiting for. Approved calls are not
 * answered here: they are carried out now (`approvedCalls`).
 */
export function startingMessages(
  run: Pick<Run, 'trigger' | 'resume' | 'input'>,
  history: ModelMessage[],
  parentPending: Pending | null,
): { messages: ModelMessage[]; approvedCalls: PendingEntry[]; deniedCalls: PendingEntry[] } {
  const messages: ModelMessage[] = [...history];
  const approvedCalls: PendingEntry[] = [];
  const deniedCalls: PendingEntry[] = [];
  if (run.trigger === 'resume' && parentPending) {
    const resume = (run.resume ?? {}) as ResumeAnswers;
    const results: ToolResultPart[] = [];
    for (const approval of parentPending.approvals) {
      const answer = resume.approvals?.[approval.tool_call_id];
      if (answer?.action === 'approve') approvedCalls.push(approval);
      else {
        deniedCalls.push(approval);
        results.push(toldNow({ toolCallId: approval.tool_call_id, toolName: approval.tool_name }, USER_DENIAL));
      }
    }
    for (const call of parentPending.calls) {
      const answer = resume.calls?.[call.tool_call_id];
      results.push(
        answer?.status === 'returned'
          ? clientResult(call.tool_call_id, call.tool_name, answer.value)
          : errorResult(call.tool_call_id, call.tool_name, String((answer?.value as string | undefined) ?? 'the tool call failed')),
      );
    }
    if (results.length) messages.push({ role: 'tool', content: results });
  }
  const content = userContent(run.input);
  if (content.length) messages.push({ role: 'user', content });
  return { messages, approvedCalls, deniedCalls };
}
