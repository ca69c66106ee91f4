// How many tokens a model request may carry: the model's context window, the room kept for its
// answer, and the two levels the agent's `model_characteristics` set — where old tool results start
// to be stubbed (proactive management) and where the oldest history is summarised (compaction).
// docs/api/context.md states these rules for users.
import { knownLimits } from './catalogue.js';

/** The window assumed when neither the agent nor the catalogue knows the model's. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_COMPACT_THRESHOLD = 0.8;
export const DEFAULT_PROACTIVE_THRESHOLD = 0.6;
/** Without `max_output_tokens`, the answer's room: the model's output limit, at most this share of the window… */
const DEFAULT_RESERVE_SHARE = 0.2;
/** …and at most this many tokens (a long answer rarely needs more; the rest of the window is the history's). */
const DEFAULT_RESERVE_CAP = 16_000;

export interface ModelCharacteristics {
  context_window_tokens?: number;
  compact_threshold?: number;
  proactive_context_management_threshold?: number;
}

export interface ContextBudget {
  /** The model's context window, in tokens. */
  window: number;
  /** Where the window came from: the agent's configuration, the model catalogue or the default. */
  windowSource: 'configuration' | 'catalogue' | 'default';
  /** Tokens kept free for the answer. */
  reserve: number;
  /** What the prompt (system, tools, messages) may take: the window less the reserve. */
  usable: number;
  /** Above this prompt size old tool results become stubs and media become references. */
  proactiveAt: number;
  /** Above this prompt size the oldest history is summarised. */
  compactAt: number;
}

export async function contextBudget(
  characteristics: ModelCharacteristics | undefined,
  model: { providerModelId: string; settings: Record<string, unknown> },
): Promise<ContextBudget> {
  const needsCatalogue = !characteristics?.context_window_tokens || typeof model.settings.max_output_tokens !== 'number';
  const known = needsCatalogue ? await knownLimits(model.providerModelId) : undefined;
  const window = characteristics?.context_window_tokens ?? known?.context ?? DEFAULT_CONTEXT_WINDOW;
  const windowSource = characteristics?.context_window_tokens ? 'configuration' : known?.context ? 'catalogue' : 'default';
  const maxOutput = model.settings.max_output_tokens;
  const outputLimit = typeof maxOutput === 'number' && maxOutput > 0 ? maxOutput : (known?.output ?? Number.POSITIVE_INFINITY);
  // Never more than half the window for the answer, whatever max_output_tokens says: the prompt needs room too.
  const reserve = Math.floor(
    Math.min(
      outputLimit,
      typeof maxOutput === 'number' && maxOutput > 0 ? window / 2 : Math.min(window * DEFAULT_RESERVE_SHARE, DEFAULT_RESERVE_CAP),
    ),
  );
  const usable = Math.max(1, window - reserve);
  const compact = characteristics?.compact_threshold ?? DEFAULT_COMPACT_THRESHOLD;
  const proactive = Math.min(characteristics?.proactive_context_management_threshold ?? DEFAULT_PROACTIVE_THRESHOLD, compact);
  return {
    window,
    windowSource,
    reserve,
    usable,
    proactiveAt: Math.floor(usable * proactive),
    compactAt: Math.floor(usable * compact),
  };
}
