// One attempt of one run: the turn loop. Prepared (prepare.ts: configuration, starting messages,
// memory recall, the toolset), it asks the model (model-turn.ts) with the thread's history, the
// agent's instructions and tools, streams what comes back as run items, carries out the tool calls
// (dispatch.ts) and checks the final output (output-check.ts), until the attempt ends in what the
// worker seals: completed (output), waiting (pending approvals, client calls or a question), failed,
// or cancelled. Nothing here talks GraphQL; callers see the result through the run row, run items
// and events.
import { AssetReader } from './asset-content.js';
import type { ModelMessage } from 'ai';
import { newId } from '../lib/ids.js';
import type { SealOutcome } from '../features/runs/run-lifecycle.js';
import { takeSteerEntries } from '../features/runs/inbox.js';
import type { RunAgentConfig } from './agent-config.js';
import { dispatchToolCalls, type Dispatched } from './dispatch.js';
import type { Recalled } from './memory-mounts.js';
import { userContent } from './messages.js';
import { MediaReader } from './media-understanding.js';
import { streamTurn } from './model-turn.js';
import { newUsage, type Usage } from './usage.js';
import { fallbackModels, resolveModel } from './models.js';
import { runModelRequest } from './provider-wait-item.js';
import { checkOutput, outputCorrection, outputInstruction, withOutputFormat } from './output-check.js';
import { prepareAttempt, type Conversation, type ExecutionContext } from './prepare.js';
import { ASK_USER_TOOL } from './tools/ask-user.js';
import { endModelRequest, type AttemptTrace } from './attempt-trace.js';
import { ContextManager } from './context/manager.js';
import { withCacheHints } from './context/caching.js';
import { BudgetGuard } from './budget-guard.js';

export type { ExecutionContext } from './prepare.js';

/** How an attempt ends: what the seal records, or another attempt. */
export type Outcome = SealOutcome | { kind: 'retry'; message: string };

export interface AttemptResult {
  outcome: Outcome;
  newMessages: ModelMessage[];
  usage: Usage;
}

/**
 * The system prompt: the agent's instructions, what the offered tools need said (e.g. the skills
 * catalogue), what memory recalled, and the output instruction.
 */
export function systemPrompt(config: RunAgentConfig, recalled: Recalled[], toolInstructions: string[] = []): string {
  const recallText = recalled
    .filter((r) => r.records.length)
    .map(
      (r) => `Records from the memory "${r.mount.name}" that may help:\n${r.records.map((rec) => `- [${rec.id}] ${rec.text}`).join('\n')}`,
    )
    .join('\n\n');
  return [config.instructions, ...toolInstructions, recallText, config.output_spec ? outputInstruction(config.output_spec) : '']
    .filter(Boolean)
    .join('\n\n');
}

export async function executeAttempt(ctx: ExecutionContext): Promise<AttemptResult> {
  const usage: Usage = ctx.usage ?? newUsage();
  // The run's budgets (budget-guard.ts): checked before each model request, settled however the attempt ends.
  const budgets = new BudgetGuard(ctx.call, ctx.run, usage);
  try {
    return await turnLoop(ctx, usage, budgets);
  } finally {
    await budgets.settle().catch((error: unknown) => ctx.call.logger.error({ err: error }, 'settling the run budgets failed'));
  }
}

async function turnLoop(ctx: ExecutionContext, usage: Usage, budgets: BudgetGuard): Promise<AttemptResult> {
  const { deps, run, signal, items } = ctx;
  const { config, options, conversation, toolset, recalled, forwardedCalls, reviewer, environments } = await prepareAttempt(ctx);
  ctx.onPrepared?.();
  // The run seals with this outcome: what its tools left to tidy in its environments goes first.
  const end = async (outcome: Outcome): Promise<AttemptResult> => {
    await environments.sealed();
    return { outcome, newMessages: conversation.newMessages, usage };
  };
  if (forwardedCalls.length) return end({ kind: 'waiting', reason: 'client_tool', approvals: [], calls: forwardedCalls });

  const maxRequests = options.max_usage?.requests ?? Number.POSITIVE_INFINITY;
  const retries = { output: config.retries?.output ?? 0, tools: config.retries?.tools ?? 0 };
  const system = systemPrompt(config, recalled, toolset.instructions());
  const media = new MediaReader({ deps, call: ctx.call, config, items, signal, usage, maxRequests });
  // Asset references become the assets' bytes first, so media understanding sees them as media.
  const assets = new AssetReader(ctx.call);
  const context = new ContextManager({
    deps,
    call: ctx.call,
    run,
    config,
    items,
    usage,
    signal,
    trace: ctx.trace,
    historyLength: conversation.messages.length - conversation.newMessages.length,
  });

  for (;;) {
    if (usage.requests >= maxRequests)
      return end({ kind: 'failed', code: 'usage_limit_exceeded', message: `the run reached its limit of ${maxRequests} model requests` });
    const spent = await budgets.beforeRequest();
    if (spent)
      return end({
        kind: 'failed',
        code: 'budget_exceeded',
        message: `the budget "${spent.name}" (${spent.id}) is spent for this ${spent.period}`,
      });
    if (usage.requests > 0 && (ctx.steerHinted?.() ?? true)) {
      // Entries delivered with `steer` join the conversation at this model request.
      for (const steered of await takeSteerEntries(ctx.call, run, usage.requests)) {
        items.open('user_message', { role: 'user', content: steered.content, steered: true }, 'completed');
        conversation.say({ role: 'user', content: userContent(steered) });
      }
    }
    const settings = config.model_settings ?? {};
    const resolved = await resolveModel(deps, run.workspaceId, config.model, settings).catch((error: unknown) => {
      ctx.trace?.modelUnavailable(config.model, error);
      throw error;
    });
    const model = withOutputFormat(resolved, config.output_spec);
    usage.requests += 1;
    const tools = toolset.forModel();
    // What of the conversation fits the model's window (context/manager.ts): all of it, or stubs and a summary for the oldest.
    let sent = await context.prepare(conversation.messages, { model, system, tools });
    let answered;
    for (let recovered = false; ;) {
      try {
        // A provider refusing for load is waited out, then the fallback models are asked (model-request-retry.ts).
        answered = await runModelRequest({
          deps,
          items,
          purpose: 'model_turn',
          signal,
          primary: model,
          fallbacks: fallbackModels(settings),
          resolve: async (key) => withOutputFormat(await resolveModel(deps, run.workspaceId, key, settings), config.output_spec),
          request: async (asked) => {
            // Media the model cannot read reaches it as descriptions; the conversation keeps the media.
            const messages = await media.forModel(await assets.forModel(sent), asked);
            const span = ctx.trace?.modelRequest(asked);
            try {
              const request = withCacheHints(asked, run.threadId, system, messages);
              const turn = await streamTurn({ model: asked, tools, signal, ...request, system: request.system ?? '' }, items, usage);
              if (span) endModelRequest(span, turn);
              return turn;
            } catch (error) {
              if (span) endModelRequest(span, { error });
              throw error;
            }
          },
        });
      } catch (error) {
        // A refusal for length: compacted and asked once more, whatever `retries` say (it is not the model's fault).
        if (recovered || !context.isOverflow(error) || usage.requests >= maxRequests) throw error;
        recovered = true;
        sent = await context.recover(conversation.messages, { model, system, tools }, error);
        usage.requests += 1;
        continue;
      }
      break;
    }
    const turn = answered.value;
    context.observe(answered.model, turn);
    conversation.say(turn.assistant);

    if (turn.toolCalls.length === 0) {
      const outcome = finalAnswer(ctx, config, turn.text, conversation, retries);
      if (outcome) return end(outcome);
      continue;
    }
    const dispatched = await dispatchToolCalls(turn.toolCalls, toolset, { items, signal, reviewer, trace: ctx.trace });
    const outcome = afterToolCalls(dispatched, conversation, retries, ctx.trace);
    if (outcome) return end(outcome);
  }
}

/**
 * A turn without tool calls is the answer: completed, or — with an output spec it does not match —
 * corrected while output retries are left (null: ask the model again), else failed.
 */
function finalAnswer(
  { items, trace, call }: ExecutionContext,
  config: RunAgentConfig,
  text: string,
  conversation: Conversation,
  retries: { output: number },
): Outcome | null {
  if (!config.output_spec) return { kind: 'completed', output: text };
  const checked = checkOutput(config.output_spec, text, call.logger);
  if (checked.ok) {
    items.open('output', { value: checked.value }, 'completed');
    return { kind: 'completed', output: checked.value };
  }
  if (retries.output <= 0)
    return { kind: 'failed', code: 'output_invalid', message: `the output does not match the output spec: ${checked.problem}` };
  retries.output -= 1;
  trace?.retry('output_invalid', retries.output, checked.problem);
  items.open('error', { code: 'output_invalid', message: checked.problem, retrying: true }, 'completed');
  conversation.say({ role: 'user', content: outputCorrection(checked.problem) });
  return null;
}

/**
 * After the tool calls of a turn: the model is told what happened to the calls handled now
 * (results, refusals, errors) and asked again (null) — or the run waits for approvals, client
 * results or an answer. Errors (unknown tools, invalid arguments, failed executions) count against
 * `retries.tools`: a turn with errors when none are left, and nothing to wait for, fails the run.
 * Refusals (a `deny` permission, the reviewer) are answers, not errors: they count against nothing.
 */
function afterToolCalls(
  { told, failures, approvals, calls }: Dispatched,
  conversation: Conversation,
  retries: { tools: number },
  trace?: AttemptTrace,
): Outcome | null {
  const waits = approvals.length > 0 || calls.length > 0;
  if (failures.length) {
    if (retries.tools <= 0 && !waits)
      return { kind: 'failed', code: 'tool_error', message: failures.map((e) => `${e.toolName}: ${e.error}`).join('; ') };
    retries.tools -= 1;
    if (!waits) trace?.retry('tool_error', retries.tools, failures.map((e) => `${e.toolName}: ${e.error}`).join('; '));
  }
  if (told.length) {
    const message: ModelMessage = { role: 'tool', content: told };
    // A waiting run asks the model nothing more: the thread keeps the message for the successor.
    if (waits) conversation.record(message);
    else conversation.say(message);
  }
  if (!waits) return null;
  const reason = approvals.length ? 'approval' : calls.some((c) => c.tool_name !== ASK_USER_TOOL) ? 'client_tool' : 'user_question';
  return { kind: 'waiting', reason, approvals, calls };
}

export const attemptId = () => newId('runAttempt');
