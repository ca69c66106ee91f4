// Prompt caching: marking the part of a request that stays the same from request to request (the
// system prompt with the tools, the summary, the history so far), for the providers whose APIs
// take a mark. The view of the conversation (manager.ts) keeps that prefix stable; this says so to
// the provider. Anthropic: `cache_control` breakpoints on the system prompt and on the last message
// (the next request reads the whole conversation up to there from the cache; an Anthropic request
// takes at most four). OpenAI: `prompt_cache_key`, the thread's id, so a thread's requests reach the
// same cache. Gemini caches repeated prefixes by itself (implicit caching); the others cache
// automatically or not at all. The messages given are never changed: marks go on copies.
// Azure's OpenAI service and the ChatGPT subscription's Responses backend read the same key as
// OpenAI (their adapters take OpenAI's provider options).
import type { ModelMessage } from 'ai';
import type { SharedV2ProviderOptions as ProviderOptions } from '@ai-sdk/provider';
import type { ResolvedModel } from '../models.js';
import { messageBound } from './tokens.js';

export interface CachedRequest {
  system: string | undefined;
  messages: ModelMessage[];
  providerOptions?: ProviderOptions;
}

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } };
/**
 * Anthropic caches no prefix shorter than 1024 tokens (2048 for its smallest models). A prompt of
 * fewer bytes than this has fewer tokens than that, so it is left unmarked (a mark would do nothing).
 */
const ANTHROPIC_MIN_CACHED_BYTES = 4096;

function promptBytes(system: string, messages: ModelMessage[]): number {
  let bytes = Buffer.byteLength(system);
  for (const message of messages) bytes += messageBound(message);
  return bytes;
}

/** Provider types whose requests take OpenAI's `prompt_cache_key`. */
const OPENAI_CACHE_KEY_TYPES = new Set(['openai', 'azure', 'chatgpt']);

export function withCacheHints(model: ResolvedModel, threadId: string, system: string, messages: ModelMessage[]): CachedRequest {
  if (model.providerType === 'anthropic' && promptBytes(system, messages) >= ANTHROPIC_MIN_CACHED_BYTES) {
    const marked: ModelMessage[] = system ? [{ role: 'system', content: system, providerOptions: EPHEMERAL }] : [];
    for (const [index, message] of messages.entries())
      marked.push(
        index === messages.length - 1
          ? ({ ...message, providerOptions: { ...message.providerOptions, ...EPHEMERAL } } as ModelMessage)
          : message,
      );
    return { system: undefined, messages: marked };
  }
  if (OPENAI_CACHE_KEY_TYPES.has(model.providerType))
    return { system, messages, providerOptions: { openai: { promptCacheKey: threadId } } };
  return { system, messages };
}
