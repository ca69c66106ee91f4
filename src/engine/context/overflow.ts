// Whether a provider refused a request because its prompt is longer than the model's context
// window. Every provider says so differently; these are the phrasings of the APIs the service
// speaks (OpenAI and Azure, Anthropic, Gemini and Vertex, Bedrock, Mistral, Cohere, Ollama, and the
// OpenAI-compatible servers: vLLM, llama.cpp, LM Studio, Groq, Together, DeepSeek, xAI, OpenRouter).
// A refusal recognised here makes the engine compact the history and ask again (manager.ts).
import { APICallError } from '@ai-sdk/provider';

const PATTERNS: RegExp[] = [
  // OpenAI, Azure, Groq, DeepSeek, OpenRouter (the error code), and vLLM / older OpenAI (the message).
  /context_length_exceeded/i,
  /maximum context length is \d+/i,
  /maximum prompt length is \d+/i, // xAI
  // Anthropic (and Claude on Bedrock / Vertex): "prompt is too long: 210000 tokens > 200000 maximum".
  /prompt is too long/i,
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  /input token count.*exceeds the maximum/i,
  /exceeds the maximum number of tokens/i,
  // Bedrock: "Input is too long for requested model." / "too many input tokens" / "input length and `max_tokens` exceed context limit".
  /input is too long/i,
  /too many (input )?tokens/i,
  /exceeds? (the )?context (limit|window|length|size)/i,
  // Ollama ("the input length exceeds the context length"), llama.cpp ("the request exceeds the available context size").
  /input length exceeds the context length/i,
  /exceeds the available context size/i,
  /exceed_context_size_error/i,
  // Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length".
  /too large for model with \d+ maximum context length/i,
  // Together, LM Studio, others: "… tokens exceed the model's context length", "context window is full".
  /context (length|window) (exceeded|is full)/i,
  /reduce the length of the (messages|prompt|input)/i,
];

/** The text of an error as a provider returned it: its message, and the response body when there is one. */
function errorText(error: unknown): string {
  if (APICallError.isInstance(error)) return `${error.message}\n${error.responseBody ?? ''}`;
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/**
 * Whether `error` is a context-length refusal. A refusal is a client error (400, 413 or 422) or an
 * error sent inside the stream; a 5xx or a rate limit never is, whatever it says.
 */
export function isContextOverflow(error: unknown): boolean {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined && ![400, 413, 422].includes(status)) return false;
  }
  const text = errorText(error);
  return PATTERNS.some((pattern) => pattern.test(text));
}

/** The window a refusal states ("maximum context length is 4000 tokens", "… > 200000 maximum"), when it states one. */
const STATED_WINDOW: RegExp[] = [
  /maximum context length is (\d+)/i,
  /maximum prompt length is (\d+)/i,
  /tokens? > (\d+) maximum/i,
  /maximum number of tokens allowed \((\d+)\)/i,
  /with (\d+) maximum context length/i,
  /context (?:length|size|window) (?:is|of) (\d+)/i,
];

export function statedWindow(error: unknown): number | null {
  const text = errorText(error);
  for (const pattern of STATED_WINDOW) {
    const found = pattern.exec(text);
    const value = found ? Number(found[1]) : NaN;
    if (Number.isInteger(value) && value > 0) return value;
  }
  return null;
}
