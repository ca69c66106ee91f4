// The reviewer (`reviewer` in the agent configuration): before an allowed server tool runs, a second
// model call rates the call's risk with structured output (`{risk, reason}`). At or above the
// threshold (per tool from `rules`, else the reviewer's) `on_flagged` applies; an error or a
// timeout applies `on_error`. The verdict is a `review` run item, and — when a person is asked —
// the approval's `presentation.review`.
import { addTokens, tokensOf, type Usage } from './usage.js';
import { jsonSchema, Output, streamText } from 'ai';
import type { Run } from '../services/rows.js';
import type { Deps } from '../services/deps.js';
import type { ReviewerConfig, RunAgentConfig } from './agent-config.js';
import { describeError } from './attempt-errors.js';
import type { RunItemStream } from './items.js';
import { callSettings, fallbackModels, resolveModel } from './models.js';
import { runModelRequest } from './provider-wait-item.js';
import type { ServerTool } from './tools/tool.js';
import type { Span } from '@opentelemetry/api';
import { endModelRequest, type AttemptTrace } from './attempt-trace.js';

/** What the reviewer decided about one call: run it, ask a person first, or refuse it. */
export type ReviewDecision =
  | { action: 'allow'; verdict?: Record<string, unknown> }
  | { action: 'ask'; verdict: Record<string, unknown> }
  | { action: 'deny'; verdict: Record<string, unknown>; message: string };

export interface CallReviewer {
  review(
    runTool: ServerTool,
    call: { toolCallId: string; toolName: string; arguments: Record<string, unknown> },
    items: RunItemStream,
    signal: AbortSignal,
    /** The call's span and the attempt's trace: the reviewer's model request is a span beneath the call's. */
    traced?: { trace: AttemptTrace; span: Span },
  ): Promise<ReviewDecision>;
}

/** Risk levels, lowest first; `none` is a rating only (a threshold is at least `low`). */
export const RISKS = ['none', 'low', 'medium', 'high', 'critical'] as const;
type Risk = (typeof RISKS)[number];
type Action = 'allow' | 'ask' | 'deny';

/** Defaults where the configuration says nothing (the spec's samples: deny on a flag and on an error). */
export const REVIEWER_DEFAULTS = { riskThreshold: 'medium', onFlagged: 'deny', onError: 'deny', timeoutSeconds: 120 } as const;

const VERDICT_SCHEMA = jsonSchema<{ risk: Risk; reason: string }>({
  type: 'object',
  properties: { risk: { type: 'string', enum: [...RISKS] }, reason: { type: 'string' } },
  required: ['risk', 'reason'],
  additionalProperties: false,
});

const SYSTEM = [
  'You review a tool call an AI agent is about to make, before it runs.',
  'Rate the risk of running it as it is: none, low, medium, high or critical — how much harm (lost or leaked data, money, irreversible or external effects) it could do.',
  'Answer with JSON: {"risk": "<level>", "reason": "<one sentence>"}.',
].join('\n');

function reviewPrompt(runTool: ServerTool, call: { toolName: string; arguments: Record<string, unknown> }, settings: ReviewerConfig) {
  const system = [SYSTEM, settings.instruction, runTool.shell ? settings.shell_instruction : undefined].filter(Boolean).join('\n\n');
  const prompt = JSON.stringify({ tool: call.toolName, description: runTool.description, arguments: call.arguments });
  return { system, prompt };
}

/** The reviewer of a run, or none when its agent has no `reviewer`. */
/** `usage`: the attempt's, to which each review's tokens and cost are added (not its request: see docs/api/runs.md). */
export function buildReviewer(deps: Deps, run: Run, config: RunAgentConfig, usage?: Usage): CallReviewer | undefined {
  const settings = config.reviewer;
  if (!settings) return undefined;
  const timeoutMs = (settings.timeout_seconds ?? REVIEWER_DEFAULTS.timeoutSeconds) * 1000;
  return {
    async review(runTool, call, items, signal, traced) {
      const rule = settings.rules?.[call.toolName];
      const threshold = rule?.risk_threshold ?? settings.risk_threshold ?? REVIEWER_DEFAULTS.riskThreshold;
      const onFlagged: Action = rule?.on_flagged ?? settings.on_flagged ?? REVIEWER_DEFAULTS.onFlagged;
      const onError: Action = settings.on_error ?? REVIEWER_DEFAULTS.onError;
      const item = items.open('review', { tool_call_id: call.toolCallId, tool_name: call.toolName, risk_threshold: threshold });
      const timeout = AbortSignal.timeout(timeoutMs);
      let verdict: Record<string, unknown>;
      let action: Action;
      let modelSpan: Span | undefined;
      try {
        const modelSettings = settings.model_settings ?? {};
        const primary = await resolveModel(deps, run.workspaceId, settings.model ?? config.model, modelSettings);
        const { system, prompt } = reviewPrompt(runTool, call, settings);
        const abortSignal = AbortSignal.any([signal, timeout]);
        // A provider refusing for load is waited out within the reviewer's timeout, then its fallbacks are asked.
        const { value: rated, model } = await runModelRequest({
          deps,
          items,
          purpose: 'review',
          signal: abortSignal,
          primary,
          fallbacks: fallbackModels(modelSettings),
          resolve: (key) => resolveModel(deps, run.workspaceId, key, modelSettings),
          request: async (asked) => {
            modelSpan = traced?.trace.reviewRequest(traced.span, asked);
            const result = streamText({
              model: asked.model,
              output: Output.object({ schema: VERDICT_SCHEMA }),
              instructions: system,
              prompt,
              abortSignal,
              maxRetries: 0,
              onError: () => undefined,
              ...callSettings(asked.settings),
            });
            try {
              // Drain the stream: the verdict settles when it ends. A model error arrives as a stream part
              // (onError only silences the SDK's logging) and is the reviewer's error as it is.
              for await (const part of result.stream) if (part.type === 'error') throw part.error;
            } catch (error) {
              // A refused request's span ends here; the request that answers ends its own below.
              if (modelSpan?.isRecording() && !signal.aborted && !timeout.aborted) endModelRequest(modelSpan, { error });
              throw error;
            }
            const verdict = await result.output;
            const reported = await result.usage;
            if (usage) addTokens(usage, asked, tokensOf(reported));
            if (modelSpan) {
              endModelRequest(modelSpan, {
                inputTokens: reported.inputTokens,
                outputTokens: reported.outputTokens,
                finishReason: await result.finishReason,
              });
            }
            return verdict;
          },
        });
        const flagged = RISKS.indexOf(rated.risk) >= RISKS.indexOf(threshold);
        action = flagged ? onFlagged : 'allow';
        verdict = { risk: rated.risk, reason: rated.reason, flagged, risk_threshold: threshold, action, model: model.key };
        items.complete(item, verdict);
      } catch (error) {
        if (signal.aborted) {
          if (modelSpan?.isRecording()) endModelRequest(modelSpan, { error });
          throw signal.reason ?? error;
        }
        const message = timeout.aborted ? `the reviewer did not answer within ${timeoutMs / 1000} s` : describeError(error);
        if (modelSpan?.isRecording()) endModelRequest(modelSpan, { error: timeout.aborted ? new Error(message) : error });
        action = onError;
        verdict = { error: message, risk_threshold: threshold, action };
        items.complete(item, verdict, 'failed');
      }
      if (action === 'allow') return { action, verdict };
      if (action === 'ask') return { action, verdict };
      const why = verdict.error
        ? `the reviewer could not rate it (${String(verdict.error)})`
        : `risk ${String(verdict.risk)}: ${String(verdict.reason)}`;
      return { action, verdict, message: `The reviewer refused this tool call (${why}).` };
    },
  };
}
