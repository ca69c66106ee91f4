// npm run bench:context: what context management costs and saves on a long thread. Starts the service
// as users do (a child process running what `npm start` runs, on its embedded PostgreSQL, or on a fresh
// database of BENCH_DATABASE_URL's server) and drives one thread through REST only — each turn a run
// with `Prefer: wait` — against a loopback OpenAI-compatible model with a small window that refuses
// prompts over it as OpenAI does, summarises by the facts it is sent and reports cached prompt tokens
// like OpenAI's automatic prefix cache (test/helpers/window-model-server.ts).
//
// Prints, per block of turns: the prompt tokens sent per turn (mean and max, as the model counted
// them) beside the whole history's size (what a request without context management would carry), the
// compactions, and the cached share of the prompt; then the totals: extra model requests compaction
// costs per 100 turns, refusals, the cache hit ratio the service reported in usage, and the code word's
// survival.
//
// Env: BENCH_CONTEXT_TURNS (200), BENCH_CONTEXT_WINDOW (4000), BENCH_CONTEXT_TURN_CHARS (1000),
// BENCH_CONTEXT_BLOCK (20), BENCH_DATABASE_URL (unset: the embedded PostgreSQL).
import { Rest } from './blackbox/clients.js';
import { freshServerDatabase, startService } from './blackbox/service.js';
import { answerFrom, CODE_WORD, startWindowModelServer, turnText } from '../test/helpers/window-model-server.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TURNS = env('BENCH_CONTEXT_TURNS', 200);
const WINDOW = env('BENCH_CONTEXT_WINDOW', 4000);
const TURN_CHARS = env('BENCH_CONTEXT_TURN_CHARS', 1000);
const BLOCK = env('BENCH_CONTEXT_BLOCK', 20);

interface TurnFigures {
  prompt: number;
  cached: number;
  compactionRequests: number;
  historyTokens: number;
  reportedInput: number;
  reportedCached: number;
  ms: number;
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
const pad = (value: string | number, width: number) => String(value).padStart(width);

async function main() {
  const server = await startWindowModelServer({ window: WINDOW, answer: answerFrom() });
  const database = process.env.BENCH_DATABASE_URL ? await freshServerDatabase(process.env.BENCH_DATABASE_URL) : null;
  const service = await startService({ databaseUrl: database?.url ?? null });
  try {
    const rest = new Rest(service.url, service.apiKey);
    const provider = await rest.ok('POST', '/api/v1/model-providers', {
      type: 'openai_compatible',
      name: 'bench window model',
      config: { base_url: `${server.url}/v1` },
      credential: { api_key: server.apiKey },
    });
    await rest.ok('POST', '/api/v1/models', { key: 'window', provider_id: provider.id, provider_model: 'window-model' });
    const agent = await rest.ok('POST', '/api/v1/agents', {
      name: 'long thread',
      config: {
        model: 'window',
        instructions: 'You are a patient assistant. Answer briefly.',
        model_characteristics: { context_window_tokens: WINDOW, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
      },
    });

    const turns: TurnFigures[] = [];
    let threadId: string | null = null;
    let historyChars = 0;
    let lastOutput: unknown = null;
    for (let turn = 1; turn <= TURNS + 1; turn += 1) {
      const text = turn > TURNS ? 'What is the code word?' : turnText(turn, TURN_CHARS);
      const before = server.requests.length;
      const started = performance.now();
      const run = await rest.ok(
        'POST',
        '/api/v1/runs',
        { agent_id: agent.id, input: { content: [{ type: 'text', text }] }, ...(threadId ? { thread_id: threadId } : {}) },
        { prefer: 'wait=60' },
      );
      const ms = performance.now() - started;
      if (run.status !== 'completed') throw new Error(`turn ${turn} ended ${run.status}: ${JSON.stringify(run.failure)}`);
      threadId = run.thread_id;
      const requests = server.requests.slice(before).map((request, index) => ({ request, index: before + index }));
      const chat = requests.filter(({ request }) => request.body?.stream);
      historyChars += text.length + String(run.output ?? '').length;
      turns.push({
        prompt: chat.reduce((sum, { index }) => sum + server.promptTokens[index]!, 0),
        cached: chat.reduce((sum, { index }) => sum + server.cachedTokens[index]!, 0),
        compactionRequests: requests.length - chat.length,
        historyTokens: Math.ceil(historyChars / 4),
        reportedInput: run.usage_at_seal?.input_tokens ?? 0,
        reportedCached: run.usage_at_seal?.cached_input_tokens ?? 0,
        ms,
      });
      if (turn > TURNS) lastOutput = run.output;
    }

    const body = turns.slice(0, TURNS);
    console.log(
      `\nContext management on one thread: ${TURNS} turns of ~${TURN_CHARS / 4} tokens, a ${WINDOW}-token window (compact 0.7, proactive 0.6)\n`,
    );
    console.log(
      `${pad('turns', 9)} | ${pad('prompt mean', 11)} | ${pad('prompt max', 10)} | ${pad('history', 8)} | ${pad('compactions', 11)} | ${pad('cached', 7)} | ${pad('p50 ms', 7)}`,
    );
    console.log('-'.repeat(82));
    for (let start = 0; start < body.length; start += BLOCK) {
      const block = body.slice(start, start + BLOCK);
      const prompts = block.map((turn) => turn.prompt);
      const cached =
        block.reduce((sum, turn) => sum + turn.cached, 0) /
        Math.max(
          1,
          prompts.reduce((a, b) => a + b, 0),
        );
      const sorted = block.map((turn) => turn.ms).sort((a, b) => a - b);
      console.log(
        `${pad(`${start + 1}–${start + block.length}`, 9)} | ${pad(Math.round(mean(prompts)), 11)} | ${pad(Math.max(...prompts), 10)} | ${pad(block.at(-1)!.historyTokens, 8)} | ${pad(block.filter((turn) => turn.compactionRequests > 0).length, 11)} | ${pad(`${Math.round(cached * 100)}%`, 7)} | ${pad(Math.round(sorted[Math.floor(sorted.length / 2)]!), 7)}`,
      );
    }
    const extra = body.reduce((sum, turn) => sum + turn.compactionRequests, 0);
    const firstHalf = mean(body.slice(Math.floor(TURNS / 4), Math.floor(TURNS / 2)).map((turn) => turn.prompt));
    const secondHalf = mean(body.slice(Math.floor((3 * TURNS) / 4)).map((turn) => turn.prompt));
    const reportedInput = turns.reduce((sum, turn) => sum + turn.reportedInput, 0);
    const reportedCached = turns.reduce((sum, turn) => sum + turn.reportedCached, 0);
    console.log(`
prompt tokens per turn, turns ${Math.floor(TURNS / 4) + 1}–${Math.floor(TURNS / 2)} vs ${Math.floor((3 * TURNS) / 4) + 1}–${TURNS}: ${Math.round(firstHalf)} vs ${Math.round(secondHalf)} (${secondHalf <= firstHalf * 1.05 ? 'flat' : 'GROWING'}); whole history at the end: ${body.at(-1)!.historyTokens}
extra model requests for compaction: ${extra} over ${TURNS} turns = ${((extra / TURNS) * 100).toFixed(1)} per 100 turns
requests refused for length: ${server.refusals}; largest prompt: ${Math.max(...server.promptTokens)} of ${WINDOW}
prompt-cache hit ratio (cached / input tokens, as the service reported them in usage_at_seal): ${((reportedCached / Math.max(1, reportedInput)) * 100).toFixed(1)}%
the code word of turn 1 in the last turn's prompt: ${server.requests.at(-1) && JSON.stringify(server.requests.at(-1)!.body.messages).includes(CODE_WORD) ? 'yes, through the summary' : 'NO: lost'}; the answer: ${String(lastOutput)}
`);
  } finally {
    await service.stop();
    await server.close();
    await database?.drop();
  }
}

await main();
