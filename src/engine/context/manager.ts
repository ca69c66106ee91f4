// Context management for one attempt: before each model request, what of the conversation the model
// is sent so that the request fits the model's window, and — on a provider's refusal for length —
// the one recovery. The conversation (and so the thread's stored history) is never changed: the
// model gets a view of it (docs/api/context.md):
//
// - below the proactive level, the conversation as it is (checked with a cheap upper bound, so a
//   short thread costs next to nothing);
// - above it, old tool results as stubs and old media as references (`stubbedBefore`);
// - above the compaction level, the oldest part summarised (`coveredMessages`, `summary`);
// - always, a single message larger than half the usable window cut with a marker.
//
// Both boundaries move forward only, in chunks (each move takes the prompt well below the level that
// caused it), and are stored with the thread (services/thread-compactions.ts) when they fall within
// its committed history: the next run starts from the same view, so the prompt's prefix stays the
// same from request to request and provider prompt caches keep hitting.
import type { ModelMessage, ToolSet } from 'ai';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { ATTR } from '../../traces/names.js';
import type { Run } from '../../services/rows.js';
import type { CallContext } from '../../services/call-context.js';
import type { Deps } from '../../services/deps.js';
import { addContextState, latestContextState, type ThreadContextState } from '../../features/threads/thread-compactions.js';
import type { RunAgentConfig } from '../agent-config.js';
import type { AttemptTrace } from '../attempt-trace.js';
import type { RunItemStream } from '../items.js';
import { addTokens, type Usage } from '../usage.js';
import { resolveModel, type ResolvedModel } from '../models.js';
import { refusalRetry } from '../provider-wait-item.js';
import { contextBudget, type ContextBudget, type ModelCharacteristics } from './budget.js';
import { chooseCut, summarise, summaryMessage } from './compaction.js';
import { isContextOverflow, statedWindow } from './overflow.js';
import { Calibration, countText, familyFactor, loadEncoder, messageBound, messageTokens } from './tokens.js';
import { cutMessage, stubbed } from './view.js';

/** What providers add around tools and the system prompt that the count does not see: a safety margin of this share of the window, at most FRAMING_TOKENS. */
const FRAMING_SHARE = 0.03;
const FRAMING_TOKENS = 500;
const framing = (budget: ContextBudget) => Math.min(FRAMING_TOKENS, Math.ceil(budget.window * FRAMING_SHARE));
/** A message larger than this share of the usable window is cut. */
const SINGLE_MESSAGE_SHARE = 0.5;
/** A compaction keeps recent messages up to this share of the compaction level (the rest is summarised)… */
const KEEP_SHARE = 0.5;
/** …and after a refusal for length, only this share. */
const RECOVERY_KEEP_SHARE = 0.2;
/** Stubbing stops once the prompt is below this share of the proactive level. */
const STUB_TARGET_SHARE = 0.7;
/** The summary's length: this share of the usable window, at most SUMMARY_MAX_TOKENS. */
const SUMMARY_SHARE = 0.15;
const SUMMARY_MAX_TOKENS = 4_000;

export interface ContextManagerOptions {
  deps: Deps;
  call: CallContext;
  run: Pick<Run, 'id' | 'workspaceId' | 'threadId'>;
  config: Pick<RunAgentConfig, 'model_settings'> & { model_characteristics?: ModelCharacteristics };
  items: RunItemStream;
  usage: Usage;
  signal: AbortSignal;
  trace?: AttemptTrace;
  /** How many of the conversation's messages are the thread's committed history (the rest: this run's). */
  historyLength: number;
}

export interface RequestShape {
  model: ResolvedModel;
  system: string;
  tools: ToolSet;
}

const toolsBoundCache = new WeakMap<object, number>();

/** Bytes of the tools' names, descriptions and schemas: an upper bound of their tokens. */
function toolsBound(tools: ToolSet): number {
  let bound = toolsBoundCache.get(tools);
  if (bound === undefined) {
    bound = 0;
    for (const [name, tool] of Object.entries(tools)) {
      const schema = (tool.inputSchema as { jsonSchema?: unknown } | undefined)?.jsonSchema ?? {};
      // A description may be a function of the tool's context in the AI SDK; this service's tools
      // (tools/toolset.ts) always give text, so anything else counts nothing.
      const description = typeof tool.description === 'string' ? tool.description : '';
      bound += Buffer.byteLength(name) + Buffer.byteLength(description) + Buffer.byteLength(JSON.stringify(schema));
    }
    toolsBoundCache.set(tools, bound);
  }
  return bound;
}

export class ContextManager {
  private state: ThreadContextState = { coveredMessages: 0, stubbedBefore: 0, summary: '' };
  private stored = { coveredMessages: 0, stubbedBefore: 0 };
  private loaded = false;
  private calibration: Calibration | null = null;
  private readonly budgets = new Map<string, ContextBudget>();
  /** The last request's estimate (scaled), for the provider's count to correct; null when only bounded. */
  private lastEstimate: number | null = null;

  constructor(private readonly options: ContextManagerOptions) {}

  private async budgetOf(model: ResolvedModel): Promise<ContextBudget> {
    let budget = this.budgets.get(model.key);
    if (!budget) {
      budget = await contextBudget(this.options.config.model_characteristics, {
        providerModelId: providerModelId(model),
        settings: model.settings,
      });
      this.budgets.set(model.key, budget);
    }
    return budget;
  }

  /** Whether an error is a provider's refusal for length (the one the engine recovers from with `recover`). */
  isOverflow(error: unknown): boolean {
    return isContextOverflow(error);
  }

  /** The provider's input tokens for the last request: they correct the estimates of the next ones. */
  observe(model: ResolvedModel, turn: { inputTokens: number; cachedInputTokens?: number }) {
    if (this.lastEstimate === null || !this.calibration) return;
    // Anthropic reports cache reads apart from `input_tokens`; the others include them.
    const reported = model.providerType === 'anthropic' ? turn.inputTokens + (turn.cachedInputTokens ?? 0) : turn.inputTokens;
    this.calibration.observe(this.lastEstimate, reported);
  }

  /** The messages to send for `messages` (the attempt's whole conversation). */
  async prepare(messages: ModelMessage[], request: RequestShape): Promise<ModelMessage[]> {
    return this.view(messages, request, false);
  }

  /**
   * After a refusal for length: the estimate was wrong, so the rest of the run estimates more
   * cautiously, and the history is compacted harder (or, when nothing is left to summarise, every
   * old result is stubbed and long messages are cut shorter). Returns the messages to send again.
   */
  async recover(messages: ModelMessage[], request: RequestShape, error: unknown): Promise<ModelMessage[]> {
    this.options.deps.logger.info({ runId: this.options.run.id, err: error }, 'the model refused the prompt for its length: compacting');
    this.calibrationFor(request.model).distrust();
    // A refusal that states the window corrects a configuration (or catalogue) that overstated it.
    const stated = statedWindow(error);
    const budget = await this.budgetOf(request.model);
    if (stated && stated < budget.window)
      this.budgets.set(
        request.model.key,
        await contextBudget(
          { ...this.options.config.model_characteristics, context_window_tokens: stated },
          { providerModelId: providerModelId(request.model), settings: request.model.settings },
        ),
      );
    return this.view(messages, request, true);
  }

  private calibrationFor(model: ResolvedModel): Calibration {
    this.calibration ??= new Calibration(familyFactor(model.providerType, providerModelId(model)));
    return this.calibration;
  }

  private async view(messages: ModelMessage[], request: RequestShape, recovering: boolean): Promise<ModelMessage[]> {
    const budget = await this.budgetOf(request.model);
    const calibration = this.calibrationFor(request.model);
    const frame = Buffer.byteLength(request.system) + toolsBound(request.tools) + framing(budget);
    if (!this.loaded && !recovering) {
      // Cheap first: bytes bound tokens. Below the proactive level there is nothing to manage and
      // nothing stored to read (a stored state exists only for a history that once passed it).
      // Newest first, stopping as soon as the bound passes the level: a long history is not measured whole.
      let bound = frame;
      for (let index = messages.length - 1; index >= 0 && bound <= budget.proactiveAt; index -= 1) bound += messageBound(messages[index]!);
      if (bound <= budget.proactiveAt) {
        this.lastEstimate = null;
        return messages;
      }
    }
    await this.load(messages);

    const encode = await loadEncoder();
    const frameTokens = calibration.scale(countText(request.system, encode) + toolsBound(request.tools) / 4) + framing(budget);
    const singleLimit = Math.floor(budget.usable * (recovering ? SINGLE_MESSAGE_SHARE / 2 : SINGLE_MESSAGE_SHARE));
    const sent = (index: number): ModelMessage => {
      const message = index < this.state.stubbedBefore ? stubbed(messages[index]!) : messages[index]!;
      const tokens = calibration.scale(messageTokens(message, encode));
      if (tokens <= singleLimit) return message;
      // Cut in proportion to the message's density, a little under the limit.
      const chars = contentChars(message);
      return cutMessage(message, Math.max(200, Math.floor((chars * singleLimit * 0.9) / tokens)));
    };
    const tokensOf = (index: number) => calibration.scale(messageTokens(sent(index), encode));
    const summaryTokens = () => (this.state.summary ? calibration.scale(messageTokens(this.summaryMessage(), encode)) : 0);
    const estimate = () => {
      let total = frameTokens + summaryTokens();
      for (let index = this.state.coveredMessages; index < messages.length; index += 1) total += tokensOf(index);
      return total;
    };

    let total = estimate();
    // Proactive: stub old tool results and media, oldest first, until well below the level — not the
    // results the model is working with (after the latest user message; in a long tool loop, the last message).
    if (total > budget.proactiveAt || recovering) {
      const lastUser = messages.findLastIndex((message, index) => index >= this.state.coveredMessages && message.role === 'user');
      const limit = recovering ? messages.length - 1 : lastUser > this.state.stubbedBefore ? lastUser : messages.length - 1;
      const target = recovering ? 0 : Math.floor(budget.proactiveAt * STUB_TARGET_SHARE);
      let index = Math.max(this.state.stubbedBefore, this.state.coveredMessages);
      while (total > target && index < limit) {
        const before = tokensOf(index);
        this.state.stubbedBefore = index + 1;
        total -= before - tokensOf(index);
        index += 1;
      }
    }
    if (total > budget.compactAt || recovering) {
      const compacted = await this.compact(messages, request, budget, { frameTokens, tokensOf, total, recovering, estimate });
      if (compacted) total = estimate();
    }
    await this.store(messages);
    this.lastEstimate = total;

    const view: ModelMessage[] = this.state.summary ? [this.summaryMessage()] : [];
    for (let index = this.state.coveredMessages; index < messages.length; index += 1) view.push(sent(index));
    return view;
  }

  private summaryMessageCache: { summary: string; message: ModelMessage } | null = null;

  /** The summary as a message (one object per summary, so its count is cached). */
  private summaryMessage(): ModelMessage {
    if (this.summaryMessageCache?.summary !== this.state.summary)
      this.summaryMessageCache = { summary: this.state.summary, message: summaryMessage(this.state.summary) };
    return this.summaryMessageCache.message;
  }

  /** Reads the thread's stored state once per attempt (the latest that matches its committed history). */
  private async load(messages: ModelMessage[]) {
    if (this.loaded) return;
    this.loaded = true;
    const { deps, run, historyLength } = this.options;
    const found = await latestContextState(deps.db, run.threadId, messages.slice(0, historyLength));
    if (found) {
      this.state = { ...found };
      this.stored = { coveredMessages: found.coveredMessages, stubbedBefore: found.stubbedBefore };
    }
  }

  /** Stores the state when it moved within the committed history (what is this run's own is not committed yet). */
  private async store(messages: ModelMessage[]) {
    const { deps, run, historyLength } = this.options;
    const covered = this.state.coveredMessages <= historyLength ? this.state.coveredMessages : this.stored.coveredMessages;
    const summary = covered === this.state.coveredMessages ? this.state.summary : null;
    const stubbedBefore = Math.max(covered, Math.min(this.state.stubbedBefore, historyLength));
    if (summary === null || (covered === this.stored.coveredMessages && stubbedBefore <= this.stored.stubbedBefore)) return;
    await addContextState(
      deps.db,
      { workspaceId: run.workspaceId, threadId: run.threadId, runId: run.id },
      messages.slice(0, historyLength),
      { coveredMessages: covered, stubbedBefore, summary },
    );
    this.stored = { coveredMessages: covered, stubbedBefore };
  }

  /**
   * Summarises the oldest messages not yet summarised, keeping the recent ones within a share of
   * the compaction level. A run item and a trace span say what happened; the requests count in
   * the run's usage. False when there is nothing to summarise.
   */
  private async compact(
    messages: ModelMessage[],
    request: RequestShape,
    budget: ContextBudget,
    figures: { frameTokens: number; tokensOf: (index: number) => number; total: number; recovering: boolean; estimate: () => number },
  ): Promise<boolean> {
    const { deps, items, usage, signal, trace, run, config } = this.options;
    const summaryMax = Math.max(200, Math.min(SUMMARY_MAX_TOKENS, Math.floor(budget.usable * SUMMARY_SHARE)));
    const share = figures.recovering ? RECOVERY_KEEP_SHARE : KEEP_SHARE;
    const keepTokens = Math.max(0, Math.floor(budget.compactAt * share) - figures.frameTokens - summaryMax);
    const from = this.state.coveredMessages;
    const cut = chooseCut(messages, from - 1, figures.tokensOf, keepTokens);
    if (cut === null || cut <= from) return false;

    const compactionKey = typeof config.model_settings?.compaction_model === 'string' ? config.model_settings.compaction_model : null;
    const model = compactionKey ? await resolveModel(deps, run.workspaceId, compactionKey, {}) : request.model;
    const item = items.open('context_compaction', {
      reason: figures.recovering ? 'context_length_exceeded' : 'threshold',
      model: model.key,
      messages_summarised: cut - from,
    });
    const span = trace?.compaction(model, { reason: figures.recovering ? 'context_length_exceeded' : 'threshold' });
    let requests = 0;
    try {
      const summary = await summarise({
        model,
        previous: this.state.summary || null,
        messages: messages.slice(from, cut),
        // What one summarisation request may carry: the usable window less the summary and the
        // instructions, at a cautious 3 characters a token.
        chunkChars: Math.max(2_000, (budget.usable - summaryMax - framing(budget)) * 3),
        maxOutputTokens: summaryMax,
        signal,
        retry: refusalRetry(deps, items, 'compaction', signal),
        onRefused: () => {
          requests += 1;
          usage.requests += 1;
        },
        onUsage: (used) => {
          requests += 1;
          usage.requests += 1;
          addTokens(usage, model, used);
        },
      });
      this.state = { coveredMessages: cut, stubbedBefore: Math.max(this.state.stubbedBefore, cut), summary };
      const after = figures.estimate();
      items.complete(item, {
        messages_covered: cut,
        tokens_before: figures.total,
        tokens_after: after,
        requests,
        summary,
      });
      if (span) endCompaction(span, { before: figures.total, after, covered: cut, summarised: cut - from, requests });
      return true;
    } catch (error) {
      items.complete(item, { error: error instanceof Error ? error.message : String(error), requests }, 'failed');
      if (span) endCompaction(span, { before: figures.total, covered: from, summarised: 0, requests, error });
      throw error;
    }
  }
}

const charsCache = new WeakMap<object, number>();

/** A message's content length as JSON (kept per message: an oversized one is measured once). */
function contentChars(message: ModelMessage): number {
  let chars = charsCache.get(message);
  if (chars === undefined) {
    chars = JSON.stringify(message.content).length;
    charsCache.set(message, chars);
  }
  return chars;
}

/** The provider's id of a resolved model (what catalogues and tokenizers know it by). */
function providerModelId(model: ResolvedModel): string {
  return (model.model as { modelId?: string }).modelId ?? model.key;
}

function endCompaction(
  span: Span,
  figures: { before: number; after?: number; covered: number; summarised: number; requests: number; error?: unknown },
) {
  span.setAttribute(ATTR.contextTokensBefore, figures.before);
  if (figures.after !== undefined) span.setAttribute(ATTR.contextTokensAfter, figures.after);
  span.setAttribute(ATTR.contextMessagesCovered, figures.covered);
  span.setAttribute(ATTR.contextMessagesSummarised, figures.summarised);
  span.setAttribute(ATTR.contextRequests, figures.requests);
  if (figures.error !== undefined) {
    span.setAttribute(ATTR.errorType, 'compaction_failed');
    span.setStatus({ code: SpanStatusCode.ERROR, message: figures.error instanceof Error ? figures.error.message : String(figures.error) });
  }
  span.end();
}
