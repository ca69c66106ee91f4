// The pure parts of context management: the budget a model's window leaves, token counting (the
// cheap bound and the BPE count, calibrated), where a compaction cuts (never between a tool call and
// its result), stubs and cuts of old or oversized messages, the recognition of each provider's
// refusal for length, and prompt-cache marks.
import { APICallError } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { contextBudget, DEFAULT_CONTEXT_WINDOW } from '../../src/engine/context/budget.js';
import { withCacheHints } from '../../src/engine/context/caching.js';
import { chooseCut, transcript } from '../../src/engine/context/compaction.js';
import { isContextOverflow, statedWindow } from '../../src/engine/context/overflow.js';
import { Calibration, countText, familyFactor, loadEncoder, messageBound, messageTokens } from '../../src/engine/context/tokens.js';
import { cutMessage, cutText, stubbed } from '../../src/engine/context/view.js';
import type { ResolvedModel } from '../../src/engine/models.js';

const user = (text: string): ModelMessage => ({ role: 'user', content: text });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'fetch', input: { id } }],
});
const result = (id: string, value: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'fetch', output: { type: 'text', value } }],
});

describe('the budget', () => {
  it('takes the configured window, keeps room for the answer and places the levels on what is left', async () => {
    const budget = await contextBudget(
      { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
      { providerModelId: 'loop-model', settings: {} },
    );
    expect(budget).toEqual({ window: 4000, windowSource: 'configuration', reserve: 800, usable: 3200, proactiveAt: 1920, compactAt: 2240 });
  });

  it('reserves max_output_tokens (at most half the window), else the catalogue output limit', async () => {
    expect(
      (await contextBudget({ context_window_tokens: 10_000 }, { providerModelId: 'x', settings: { max_output_tokens: 1000 } })).reserve,
    ).toBe(1000);
    expect(
      (await contextBudget({ context_window_tokens: 10_000 }, { providerModelId: 'x', settings: { max_output_tokens: 9000 } })).reserve,
    ).toBe(5000);
    const known = await contextBudget(undefined, { providerModelId: 'gpt-4o', settings: {} });
    expect(known).toMatchObject({ window: 128_000, windowSource: 'catalogue', reserve: 16_000 });
  });

  it('finds known models under vendor prefixes and dated ids, and falls back to the default', async () => {
    expect((await contextBudget(undefined, { providerModelId: 'claude-sonnet-4-20250514', settings: {} })).window).toBe(200_000);
    expect((await contextBudget(undefined, { providerModelId: 'openai/gpt-4o', settings: {} })).windowSource).toBe('catalogue');
    expect(await contextBudget(undefined, { providerModelId: 'my-local-model', settings: {} })).toMatchObject({
      window: DEFAULT_CONTEXT_WINDOW,
      windowSource: 'default',
    });
  });

  it('never lets the proactive level pass the compaction level', async () => {
    const budget = await contextBudget(
      { context_window_tokens: 1000, compact_threshold: 0.5, proactive_context_management_threshold: 0.9 },
      { providerModelId: 'x', settings: {} },
    );
    expect(budget.proactiveAt).toBe(budget.compactAt);
  });
});

describe('token counting', () => {
  it('bounds tokens by bytes and counts them with the BPE below that bound', async () => {
    const encode = await loadEncoder();
    const message = user('The quick brown fox jumps over the lazy dog. '.repeat(20));
    const tokens = messageTokens(message, encode);
    expect(tokens).toBeGreaterThan(150);
    expect(tokens).toBeLessThan(messageBound(message));
    // Cached per message object: the same answer without counting again.
    expect(messageTokens(message, () => 0)).toBe(tokens);
  });

  it('counts any text in bounded time: a long run without spaces, a very long text by samples', async () => {
    const encode = await loadEncoder();
    const started = performance.now();
    const run = countText('x'.repeat(200_000), encode);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(run).toBeGreaterThan(20_000);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(4_000);
    const sampled = countText(prose, encode);
    expect(Math.abs(sampled - encode(prose)) / encode(prose)).toBeLessThan(0.05);
  });

  it('counts tool calls, tool results and media parts', async () => {
    const encode = await loadEncoder();
    expect(messageTokens(call('c1'), encode)).toBeGreaterThan(4);
    expect(messageTokens(result('c1', 'x '.repeat(500)), encode)).toBeGreaterThan(400);
    const image: ModelMessage = { role: 'user', content: [{ type: 'image', image: 'asset:ast_01', mediaType: 'image/png' }] };
    expect(messageTokens(image, encode)).toBeGreaterThanOrEqual(1600);
  });

  it('scales by the family and follows what the provider reports, within bounds', () => {
    expect(familyFactor('anthropic', 'claude-sonnet-4')).toBeGreaterThan(familyFactor('openai', 'gpt-4o'));
    const calibration = new Calibration(1);
    expect(calibration.scale(1000)).toBe(1000);
    calibration.observe(1000, 1300);
    expect(calibration.scale(1000)).toBe(1300);
    calibration.observe(1300, 100_000);
    expect(calibration.scale(1000)).toBe(3000);
    calibration.distrust();
    expect(calibration.scale(1000)).toBe(3000);
  });
});

describe('where a compaction cuts', () => {
  const messages = [user('a'), assistant('b'), user('c'), call('t1'), result('t1', 'r'), assistant('d'), user('e'), assistant('f')];
  const each = () => 10;

  it('keeps the newest messages that fit, starting at a message that is not a tool result', () => {
    expect(chooseCut(messages, -1, each, 20)).toBe(6);
    // 40 tokens would start the kept part at the tool result: it starts at its call instead.
    expect(chooseCut(messages, -1, each, 40)).toBe(5);
    expect(chooseCut(messages, -1, each, 50)).toBe(3);
  });

  it('always keeps the last message, and summarises nothing already summarised', () => {
    expect(chooseCut(messages, -1, each, 0)).toBe(7);
    expect(chooseCut(messages, 6, each, 0)).toBe(7);
    expect(chooseCut(messages, 7, each, 0)).toBeNull();
    expect(chooseCut([user('a'), call('t'), result('t', 'r')], -1, each, 0)).toBe(1);
  });

  it('writes a transcript with speakers, calls and results cut to a limit', () => {
    const text = transcript([user('hello'), call('t1'), result('t1', 'y'.repeat(5000))], 1000);
    expect(text).toContain('User: hello');
    expect(text).toContain('[called fetch with {"id":"t1"}]');
    expect(text).toContain('characters cut here');
    expect(text.length).toBeLessThan(2500);
  });
});

describe('stubs and cuts', () => {
  it('stubs a tool result, keeping the ref a stored result names', () => {
    const stored = result(
      't1',
      '[The result is 90000 bytes … Read the rest with read_tool_output {"ref": "itm_1:result", "offset": 8192}.]\nabc',
    );
    const stub = stubbed(stored) as { content: { output: { value: string } }[] };
    expect(stub.content[0]!.output.value).toContain('read_tool_output {"ref": "itm_1:result"}');
    expect(stubbed(result('t2', 'small'))).toMatchObject({
      content: [{ output: { type: 'text', value: expect.stringContaining('Call the tool again') } }],
    });
    // The same object every time: a stable prefix for prompt caches.
    expect(stubbed(stored)).toBe(stubbed(stored));
    // Text stays as it is.
    const text = user('hi');
    expect(stubbed(text)).toBe(text);
  });

  it('turns old media into a line naming the asset', () => {
    const image: ModelMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image', image: 'asset:ast_01ABC', mediaType: 'image/png' },
      ],
    };
    expect(stubbed(image)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'text', text: '[an image sent earlier, asset ast_01ABC; not repeated to save room]' },
      ],
    });
  });

  it('cuts a long text keeping its head and tail with a marker', () => {
    const text = `HEAD${'x'.repeat(10_000)}TAIL`;
    const cut = cutText(text, 1000);
    expect(cut.startsWith('HEAD')).toBe(true);
    expect(cut.endsWith('TAIL')).toBe(true);
    expect(cut).toMatch(/\[… 9\d{3} characters cut here/);
    expect(cutText('short', 1000)).toBe('short');
    const message = cutMessage(result('t', text), 1000) as { content: { output: { value: string } }[] };
    expect(message.content[0]!.output.value.length).toBeLessThan(1200);
    const bigCall: ModelMessage = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'echo', input: { message: text } }],
    };
    expect(JSON.stringify(cutMessage(bigCall, 1000)).length).toBeLessThan(1400);
  });
});

describe('refusals for length', () => {
  const apiError = (statusCode: number, message: string, responseBody?: string) =>
    new APICallError({ message, url: 'http://x', requestBodyValues: {}, statusCode, responseBody, isRetryable: false });

  it.each([
    [
      'OpenAI',
      apiError(400, "This model's maximum context length is 128000 tokens.", '{"error":{"code":"context_length_exceeded"}}'),
      128000,
    ],
    ['Anthropic', apiError(400, 'prompt is too long: 210000 tokens > 200000 maximum'), 200000],
    ['Gemini', apiError(400, 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).'), 1048576],
    ['Bedrock', apiError(400, 'Input is too long for requested model.'), null],
    [
      'Bedrock (Converse)',
      apiError(400, 'The model returned the following errors: input length and `max_tokens` exceed context limit'),
      null,
    ],
    ['Ollama', apiError(400, 'the input length exceeds the context length'), null],
    ['vLLM', apiError(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens."), 4096],
    ['llama.cpp', apiError(400, 'the request exceeds the available context size, try increasing it'), null],
    [
      'Mistral',
      apiError(400, 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length'),
      32768,
    ],
    [
      'Groq',
      apiError(400, 'Please reduce the length of the messages or completion.', '{"error":{"code":"context_length_exceeded"}}'),
      null,
    ],
    ['xAI', apiError(400, "This model's maximum prompt length is 131072 but the request contains 140000 tokens."), 131072],
    ['in-stream error', new Error('prompt is too long'), null],
  ])('recognises %s', (_name, error, window) => {
    expect(isContextOverflow(error)).toBe(true);
    expect(statedWindow(error)).toBe(window);
  });

  it('does not take other errors for one', () => {
    expect(isContextOverflow(apiError(429, 'Rate limit reached: too many tokens per minute'))).toBe(false);
    expect(isContextOverflow(apiError(500, 'prompt is too long'))).toBe(false);
    expect(isContextOverflow(apiError(400, 'Invalid value for temperature'))).toBe(false);
    expect(isContextOverflow(new Error('socket hang up'))).toBe(false);
  });
});

describe('prompt-cache marks', () => {
  const model = (providerType: string) => ({ providerType, key: 'k' }) as ResolvedModel;
  const long = [user('x'.repeat(5000)), assistant('ok'), user('next')];

  it('marks the system prompt and the last message for Anthropic, on copies', () => {
    const marked = withCacheHints(model('anthropic'), 'thr_1', 'be brief', long);
    expect(marked.system).toBeUndefined();
    expect(marked.messages[0]).toEqual({
      role: 'system',
      content: 'be brief',
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
    });
    expect(marked.messages.at(-1)).toMatchObject({ providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } });
    expect(long[2]).toEqual(user('next'));
    // A prompt too short to be cached is left unmarked.
    expect(withCacheHints(model('anthropic'), 'thr_1', 'be brief', [user('hi')])).toEqual({ system: 'be brief', messages: [user('hi')] });
  });

  it("gives OpenAI, Azure and the ChatGPT backend the thread's id as the cache key, and leaves the others alone", () => {
    for (const type of ['openai', 'azure', 'chatgpt'])
      expect(withCacheHints(model(type), 'thr_1', 's', long).providerOptions, type).toEqual({ openai: { promptCacheKey: 'thr_1' } });
    expect(withCacheHints(model('openai_compatible'), 'thr_1', 's', long)).toEqual({ system: 's', messages: long });
  });
});
