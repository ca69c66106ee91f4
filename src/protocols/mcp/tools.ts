// What the MCP adapter shows of agents and runs: tool names, the tools' schemas, and the text of a
// run's result or pause. Pure functions of what the GraphQL operations answered.

// The answers' types are generated from the documents (src/protocols/operations/*.graphql).
import type { McpAgentsQuery, ProtocolRunViewFragment } from '../../generated/protocol-documents.js';

/** An agent as the tool list reads it. */
export type AgentSummary = McpAgentsQuery['agents']['nodes'][number];
export type RunView = ProtocolRunViewFragment;

/** MCP tool names: 1–128 characters of `A-Z a-z 0-9 _ - .` (2025-11-25); we keep them shorter for hosts that cut at 64. */
const MAX_NAME = 64;

/** The agent's name as a tool name: accents dropped, anything else outside the allowed set as `_`. */
export function baseToolName(name: string): string {
  const plain = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '');
  return plain.slice(0, MAX_NAME) || 'agent';
}

/**
 * One tool name per agent, unique in the list. Agents are taken oldest first (ids are time-sortable),
 * so the oldest agent of a name keeps the plain name and a newer namesake gets its id's tail: a name,
 * once seen by a client, does not move when another agent of the same name is created.
 */
export function toolNames(agents: readonly AgentSummary[]): Map<string, AgentSummary> {
  const byName = new Map<string, AgentSummary>();
  const sorted = [...agents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const agent of sorted) {
    const base = baseToolName(agent.name);
    let name = base;
    if (byName.has(name)) {
      const tail = agent.id
        .replace(/^[a-z]+_/, '')
        .slice(-8)
        .toLowerCase();
      name = `${base.slice(0, MAX_NAME - tail.length - 1)}_${tail}`;
      for (let n = 2; byName.has(name); n++) name = `${base.slice(0, MAX_NAME - tail.length - 2 - String(n).length)}_${tail}_${n}`;
    }
    byName.set(name, agent);
  }
  return byName;
}

/** A tool's input or output schema as the MCP SDK takes it: a JSON Schema of an object. */
export interface ToolSchema {
  type: 'object';
  [key: string]: unknown;
}

export const INPUT_SCHEMA: ToolSchema = {
  type: 'object',
  properties: {
    message: { type: 'string', minLength: 1, description: 'What to tell the agent, or the answer to what a paused run asked.' },
    thread_id: {
      type: 'string',
      description:
        'Continue this thread (from an earlier result). When its last run is paused for a question or an approval, the message answers it.',
    },
  },
  required: ['message'],
  additionalProperties: false,
};

const PENDING_SCHEMA = {
  type: 'object',
  properties: {
    tool_call_id: { type: 'string' },
    kind: { type: 'string', enum: ['approval', 'client_call', 'question'] },
    tool_name: { type: 'string' },
    arguments: {},
    question: { type: 'string' },
    choices: { type: 'array', items: { type: 'string' } },
    title: { type: 'string' },
  },
  required: ['tool_call_id', 'kind', 'tool_name'],
} as const;

export const OUTPUT_SCHEMA: ToolSchema = {
  type: 'object',
  properties: {
    run_id: { type: 'string' },
    thread_id: { type: 'string' },
    status: { type: 'string', enum: ['accepted', 'running', 'waiting', 'completed', 'failed', 'cancelled'] },
    wait_reason: { type: 'string', enum: ['approval', 'client_tool', 'user_question'] },
    pending: { type: 'array', items: PENDING_SCHEMA },
    failure: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
  },
  required: ['run_id', 'thread_id', 'status'],
};

export function toolDescription(agent: AgentSummary): string {
  const own = agent.description.trim() || `Runs the agent "${agent.name}".`;
  return `${own}\n\nStarts a run of this agent with the message. Pass the result's thread_id to continue the conversation, or to answer a run that paused for a question or an approval.`;
}

const pendingOf = (run: RunView) => [...run.pending.approvals, ...run.pending.calls];

/** The structured content of a tool result (as OUTPUT_SCHEMA declares it). */
export function structuredResult(run: RunView): Record<string, unknown> {
  const pending = pendingOf(run);
  return {
    run_id: run.id,
    thread_id: run.threadId,
    status: run.status,
    ...(run.status === 'waiting' && run.waitReason ? { wait_reason: run.waitReason } : {}),
    ...(run.status === 'waiting' && pending.length
      ? {
          pending: pending.map((call) => ({
            tool_call_id: call.toolCallId,
            kind: call.presentation.kind,
            tool_name: call.toolName,
            arguments: call.arguments,
            ...(call.presentation.question ? { question: call.presentation.question } : {}),
            ...(call.presentation.choices?.length ? { choices: call.presentation.choices } : {}),
            ...(call.presentation.title ? { title: call.presentation.title } : {}),
          })),
        }
      : {}),
    ...(run.failure ? { failure: run.failure } : {}),
  };
}

const outputText = (output: unknown) =>
  typeof output === 'string' ? output : output === null || output === undefined ? '' : JSON.stringify(output);

/** The text a client (and its model) reads: the output, or what a paused run asks and how to answer it. */
export function resultText(run: RunView): string {
  switch (run.status) {
    case 'completed':
      return outputText(run.output);
    case 'failed':
      return `The run failed (${run.failure?.code ?? 'unknown'}): ${run.failure?.message ?? ''}`.trim();
    case 'cancelled':
      return 'The run was cancelled.';
    case 'waiting':
      return pausedText(run);
    default:
      return `The run is ${run.status}.`;
  }
}

function pausedText(run: RunView): string {
  const lines = ['The run is paused and waits for an answer.'];
  for (const call of pendingOf(run)) {
    const { kind, question, choices, title } = call.presentation;
    if (kind === 'question') {
      lines.push(`Question: ${question ?? ''}${choices?.length ? ` (choices: ${choices.join(', ')})` : ''}`);
    } else if (kind === 'approval') {
      lines.push(
        `Approval needed: the agent wants to call ${call.toolName}${title && title !== call.toolName ? ` (${title})` : ''} with ${JSON.stringify(call.arguments)}.`,
      );
    } else {
      lines.push(
        `Client tool call: ${call.toolName} with ${JSON.stringify(call.arguments)}; the message is returned to the agent as its result.`,
      );
    }
  }
  const approvals = run.pending.approvals.length > 0;
  lines.push(
    `To answer, call this tool again with thread_id "${run.threadId}" and the answer as the message${approvals ? ' ("approve" or "deny" for an approval)' : ''}.`,
  );
  return lines.join('\n');
}

const APPROVE = /^\s*(approve|approved|yes|y|allow|ok)\s*[.!]?\s*$/i;
const DENY = /^\s*(deny|denied|no|n|reject|refuse)\s*[.!]?\s*$/i;

/**
 * The resume batch that answers every pending call of a waiting run with the message: questions and
 * client calls return it, approvals read it as approve or deny. Null when an approval is pending and
 * the message is neither.
 */
export function resumeInput(run: RunView, message: string): { approvals: Record<string, unknown>; calls: Record<string, unknown> } | null {
  const approvals: Record<string, unknown> = {};
  for (const call of run.pending.approvals) {
    const action = APPROVE.test(message) ? 'approve' : DENY.test(message) ? 'deny' : null;
    if (!action) return null;
    approvals[call.toolCallId] = { action };
  }
  const calls: Record<string, unknown> = {};
  for (const call of run.pending.calls) calls[call.toolCallId] = { status: 'returned', value: message };
  return { approvals, calls };
}
