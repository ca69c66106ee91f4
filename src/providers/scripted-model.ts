// The built-in development model: an AI SDK language model (LanguageModelV4) that needs no network.
// Without a script it echoes the latest user text. With `model_settings.script` — a list of turns,
// each a list of steps — it plays turn N on the N-th model request of a thread, so every engine
// path (streaming, tool calls, pauses, errors, delays, structured output) can be driven offline.
//
// Steps: {"text": "…"} | {"text_chunks": ["…", "…"]} | {"reasoning": "…"} |
//        {"tool_call": {"name": "…", "arguments": {…}, "id"?: "…"}} | {"delay_ms": 50} |
//        {"error": {"message": "…", "transient"?: true}} | {"timestamp": true} (emits Date.now() as
//        text: benchmarks measure model-chunk-to-subscriber latency with it)
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { APICallError } from '@ai-sdk/provider';

export type ScriptStep =
  | { text: string }
  | { text_chunks: string[] }
  | { reasoning: string }
  | { tool_call: { name: string; arguments?: Record<string, unknown>; id?: string } }
  | { delay_ms: number }
  | { timestamp: true }
  | { error: { message: string; transient?: boolean } };

export interface ScriptSettings {
  script?: ScriptStep[][];
  /** When the script runs out: `echo` (default) or `repeat_last`. */
  after_script?: 'echo' | 'repeat_last';
}

function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role === 'user') return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }
  return '';
}

/** How many model requests this conversation has already answered (assistant messages so far). */
function turnIndex(prompt: LanguageModelV4Prompt): number {
  return prompt.filter((message) => message.role === 'assistant').length;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

let callCounter = 0;

export function createScriptedModel(modelId: string, settings: ScriptSettings): LanguageModelV4 {
  const script = Array.isArray(settings.script) ? settings.script : [];
  const stepsFor = (prompt: LanguageModelV4Prompt): ScriptStep[] => {
    const index = turnIndex(prompt);
    if (index < script.length) return script[index]!;
    if (settings.after_script === 'repeat_last' && script.length) return script[script.length - 1]!;
    return [{ text: `echo: ${lastUserText(prompt)}` }];
  };
  return {
    specificationVersion: 'v4',
    provider: 'development',
    modelId,
    supportedUrls: {},
    async doGenerate() {
      throw new Error('the development model streams only');
    },
    async doStream(options: LanguageModelV4CallOptions) {
      const steps = stepsFor(options.prompt);
      const signal = options.abortSignal;
      let outputChars = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          try {
            controller.enqueue({ type: 'stream-start', warnings: [] });
            let textId: string | null = null;
            let hasToolCalls = false;
            const emitText = (delta: string) => {
              if (!textId) {
                textId = `t${++callCounter}`;
                controller.enqueue({ type: 'text-start', id: textId });
              }
              outputChars += delta.length;
              controller.enqueue({ type: 'text-delta', id: textId, delta });
            };
            for (const step of steps) {
              if (signal?.aborted) throw signal.reason ?? new Error('aborted');
              if ('text' in step) emitText(step.text);
              else if ('text_chunks' in step) for (const chunk of step.text_chunks) emitText(chunk);
              else if ('reasoning' in step) {
                const id = `r${++callCounter}`;
                controller.enqueue({ type: 'reasoning-start', id });
                controller.enqueue({ type: 'reasoning-delta', id, delta: step.reasoning });
                controller.enqueue({ type: 'reasoning-end', id });
              } else if ('tool_call' in step) {
                hasToolCalls = true;
                controller.enqueue({
                  type: 'tool-call',
                  toolCallId: step.tool_call.id ?? `call_${++callCounter}`,
                  toolName: step.tool_call.name,
                  input: JSON.stringify(step.tool_call.arguments ?? {}),
                });
              } else if ('delay_ms' in step) await sleep(step.delay_ms, signal);
              else if ('timestamp' in step) emitText(`@${Date.now()}@`);
              else if ('error' in step) {
                throw new APICallError({
                  message: step.error.message,
                  url: 'development://model',
                  requestBodyValues: {},
                  statusCode: step.error.transient ? 503 : 400,
                  isRetryable: Boolean(step.error.transient),
                });
              }
            }
            if (textId) controller.enqueue({ type: 'text-end', id: textId });
            const inputTokens = Math.ceil(JSON.stringify(options.prompt).length / 4);
            const outputTokens = Math.ceil(outputChars / 4);
            const finishReason = hasToolCalls ? 'tool-calls' : 'stop';
            // An estimate (4 characters a token); nothing is cached, so every input token is `noCache`.
            controller.enqueue({
              type: 'finish',
              finishReason: { unified: finishReason, raw: finishReason },
              usage: {
                inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
              },
            });
            controller.close();
          } catch (error) {
            controller.enqueue({ type: 'error', error });
            controller.close();
          }
        },
      });
      return { stream };
    },
  };
}
