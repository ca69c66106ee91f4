// What the loopback model does in one bench run, drawn at random within the configured ranges: its turns,
// each with a time to first token, a pace, an answer length and the tool call that ends it (none on the
// last turn). The bench writes the plan into the run's input, so the model (another process) reads it
// from the request and the bench knows the pace it planned.

export interface Range {
  min: number;
  max: number;
}

/** "300-800" or "300" (both ends included). */
export function parseRange(text: string): Range {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?))?\s*$/.exec(text);
  if (!match) throw new Error(`not a range: ${JSON.stringify(text)} (write 300-800, or 300)`);
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) throw new Error(`a range with its end below its start: ${text}`);
  return { min, max };
}

/** The tool a turn ends with: an MCP tool, the http_request plugin (both server tools) or the client's. */
export type ToolKind = 'mcp' | 'http' | 'client';

export interface Turn {
  ttftMs: number;
  tokensPerSecond: number;
  tokens: number;
  tool: { kind: ToolKind; resultBytes: number } | null;
}

export interface Plan {
  id: string;
  turns: Turn[];
}

export interface PlanKnobs {
  ttftMs: Range;
  tokensPerSecond: Range;
  answerTokens: Range;
  turns: Range;
  /** Chance that a run has one client-tool call (on a random turn but the last). */
  clientToolShare: number;
  /** Chance that a server tool call returns a large result. */
  largeResultShare: number;
  largeResultKb: Range;
  /** The size of an ordinary tool result. */
  smallResultBytes: number;
}

export type Random = () => number;

/** A small seeded generator (mulberry32), so that a sweep can be drawn again the same. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const uniform = (random: Random, range: Range) => range.min + random() * (range.max - range.min);
const integer = (random: Random, range: Range) => Math.floor(range.min + random() * (range.max - range.min + 1));

export function drawPlan(id: string, knobs: PlanKnobs, random: Random): Plan {
  const count = Math.max(1, integer(random, knobs.turns));
  const clientTurn = count > 1 && random() < knobs.clientToolShare ? Math.floor(random() * (count - 1)) : -1;
  const turns: Turn[] = Array.from({ length: count }, (_, index) => {
    const last = index === count - 1;
    const kind: ToolKind = index === clientTurn ? 'client' : random() < 0.5 ? 'mcp' : 'http';
    const large = kind !== 'client' && random() < knobs.largeResultShare;
    return {
      ttftMs: Math.round(uniform(random, knobs.ttftMs)),
      tokensPerSecond: Math.round(uniform(random, knobs.tokensPerSecond)),
      tokens: Math.max(1, integer(random, knobs.answerTokens)),
      tool: last ? null : { kind, resultBytes: large ? Math.round(uniform(random, knobs.largeResultKb) * 1024) : knobs.smallResultBytes },
    };
  });
  return { id, turns };
}

/** The time the model's plan needs from the run's first token to its last (tools and the client not counted). */
export function plannedStreamingMs(plan: Plan): number {
  return plan.turns.reduce(
    (total, turn, index) => total + (index === 0 ? 0 : turn.ttftMs) + ((turn.tokens - 1) / turn.tokensPerSecond) * 1000,
    0,
  );
}

const MARKER = 'bench-plan:';

/** The run input's text that carries the plan (the model finds it in the request's messages). */
export const planInput = (plan: Plan): string => `${MARKER}${JSON.stringify(plan)}`;

/** The plan in a message's text, or null. */
export function planFromText(text: string): Plan | null {
  const at = text.indexOf(MARKER);
  if (at < 0) return null;
  try {
    return JSON.parse(text.slice(at + MARKER.length)) as Plan;
  } catch {
    return null;
  }
}
