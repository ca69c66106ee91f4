// Streaming cost per token, from outside: the service started as users start it (a child process on
// its embedded PostgreSQL), runs on the loopback model, real graphql-ws clients. The same workload is
// followed through the old `runItems` subscription (a snapshot of the whole item per change: the
// baseline) and through `runItemEvents` (appends as deltas), in the same run.
//
// Two paces:
// - closed loop: the bench writes one token to every held model stream and waits until every
//   subscriber has seen it before the next (no coalescing possible: the worst case per token);
// - burst: every token in its own event-loop turn of the model server, without waiting (what the
//   service does when tokens come faster than one per turn: appends coalesce).
// Reported: node CPU per token per subscriber (µs), PostgreSQL CPU per token, fan-out (tokens ×
// subscribers per second), and bytes received per subscriber per answer at two answer lengths (linear:
// the ratio is the ratio of the lengths; quadratic: its square).
//
//   npm run bench:streaming            (RUNS, SUBSCRIBERS, TOKENS from the environment to change the sizes)
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startService, type Service } from './blackbox/service.js';
import { addLoopbackAgent, startLoopbackModel, type LoopbackModel } from './blackbox/loopback-model.js';
import { Rest } from './blackbox/clients.js';

const CONNECTIONS = 20;
const TOKEN = 'tok# '; // about one model token; the '#' counts them

const SNAPSHOTS = `subscription($id: ID!) { runItems(runId: $id) { ordinal kind state content lastStreamId } }`;
const EVENTS = `subscription($id: ID!) { runItemEvents(runId: $id) {
  __typename
  ... on RunItem { ordinal kind state content lastStreamId }
  ... on RunItemTextDelta { ordinal member offset text streamId }
} }`;

type Mode = 'runItems' | 'runItemEvents';

/** graphql-ws connections whose sockets count the bytes they receive. */
function connect(service: Service, received: { bytes: number }): Client[] {
  class Counting extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      this.on('message', (data: Buffer) => (received.bytes += data.length));
    }
  }
  return Array.from({ length: CONNECTIONS }, () =>
    createClient({
      url: `${service.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: Counting,
      connectionParams: { authorization: `Bearer ${service.apiKey}` },
      retryAttempts: 0,
    }),
  );
}

/** Follows a run; `onText` gets the text message's text each time it changes. Resolves when the subscription completes. */
function follow(client: Client, mode: Mode, runId: string, onText: (text: string) => void): Promise<void> {
  const texts = new Map<number, string>();
  return new Promise((resolve, reject) => {
    client.subscribe(
      { query: mode === 'runItems' ? SNAPSHOTS : EVENTS, variables: { id: runId } },
      {
        next: (value) => {
          if (value.errors) return reject(new Error(JSON.stringify(value.errors)));
          const event = (value.data as any)[mode];
          if (event.__typename === 'RunItemTextDelta') {
            const text = (texts.get(event.ordinal) ?? '') + event.text;
            texts.set(event.ordinal, text);
            onText(text);
          } else if (event.kind === 'text_message') {
            texts.set(event.ordinal, String(event.content?.text ?? ''));
            onText(texts.get(event.ordinal)!);
          }
        },
        error: reject,
        complete: resolve,
      },
    );
  });
}

interface Result {
  mode: Mode;
  pace: 'closed loop' | 'burst';
  runs: number;
  subscribers: number;
  tokens: number;
  nodeUsPerTokenSubscriber: number;
  postgresUsPerToken: number;
  tokensPerSecond: number;
  bytesPerSubscriber: number;
}

async function measure(
  service: Service,
  rest: Rest,
  loopback: LoopbackModel,
  agentId: string,
  options: { mode: Mode; pace: Result['pace']; runs: number; perRun: number; tokens: number },
): Promise<Result> {
  const { mode, pace, runs, perRun, tokens } = options;
  const created = await Promise.all(
    Array.from({ length: runs }, () =>
      rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } }),
    ),
  );
  await loopback.held(runs);
  const received = { bytes: 0 };
  const clients = connect(service, received);
  const subscribers = runs * perRun;
  const seen = new Array<number>(subscribers).fill(0);
  let target = 0;
  let atTarget = 0;
  let reached: (() => void) | null = null;
  const done = Array.from({ length: subscribers }, (_, index) =>
    follow(clients[index % CONNECTIONS]!, mode, created[index % runs]!.id, (text) => {
      const count = (text.match(/#/g) ?? []).length;
      const before = seen[index]!;
      seen[index] = count;
      if (before < target && count >= target && ++atTarget === subscribers) reached?.();
    }),
  );
  // A subscription that fails stops the measurement with its error (not an unhandled rejection later).
  let failed: ((error: unknown) => void) | null = null;
  for (const feed of done) feed.catch((error: unknown) => failed?.(error instanceof Error ? error : new Error(JSON.stringify(error))));
  const until = (count: number) =>
    new Promise<void>((resolve, reject) => {
      failed = reject;
      target = count;
      atTarget = seen.filter((value) => value >= count).length;
      if (atTarget === subscribers) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`${mode}: ${atTarget}/${subscribers} subscribers saw token ${count} in 120 s`)),
        120_000,
      );
      reached = () => (clearTimeout(timer), resolve());
    });
  // The first token until everyone shows it: a subscription has no "listening" signal.
  loopback.send(TOKEN);
  await until(1);
  const bytesBefore = received.bytes;
  const cpuBefore = service.processes.cpu();
  const started = performance.now();
  if (pace === 'closed loop') {
    for (let k = 2; k <= tokens + 1; k++) {
      loopback.send(TOKEN);
      await until(k);
    }
  } else {
    for (let k = 2; k <= tokens + 1; k++) {
      loopback.send(TOKEN);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await until(tokens + 1);
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = service.processes.cpu();
  const bytes = received.bytes - bytesBefore;
  loopback.finish();
  await Promise.all(done);
  await Promise.all(clients.map((client) => client.dispose()));
  return {
    mode,
    pace,
    runs,
    subscribers,
    tokens,
    nodeUsPerTokenSubscriber: ((cpuAfter.nodeMs - cpuBefore.nodeMs) * 1000) / (tokens * subscribers),
    postgresUsPerToken: ((cpuAfter.postgresMs - cpuBefore.postgresMs) * 1000) / (tokens * runs),
    tokensPerSecond: (tokens * subscribers) / elapsed,
    bytesPerSubscriber: bytes / subscribers,
  };
}

async function main() {
  const runs = Number(process.env.RUNS ?? 20);
  const fanOut = Number(process.env.SUBSCRIBERS ?? 50);
  const tokens = Number(process.env.TOKENS ?? 100);
  const loopback = await startLoopbackModel();
  const service = await startService({ databaseUrl: null, env: { RUN_WORKERS: String(Math.max(runs, 8) + 2) } });
  try {
    const rest = new Rest(service.url, service.apiKey);
    const agentId = await addLoopbackAgent(rest, loopback, 'stream');
    const results: Result[] = [];
    const shapes = [
      { runs, perRun: 1, label: `${runs} runs × 1 subscriber` },
      { runs: 1, perRun: fanOut, label: `1 run × ${fanOut} subscribers` },
    ];
    for (const shape of shapes)
      for (const pace of ['closed loop', 'burst'] as const)
        for (const mode of ['runItems', 'runItemEvents'] as const) {
          const result = await measure(service, rest, loopback, agentId, { mode, pace, runs: shape.runs, perRun: shape.perRun, tokens });
          results.push(result);
          console.error(`${shape.label}, ${pace}, ${mode}: done`);
        }
    // Bytes per answer at a longer answer: linear when the bytes grow as the length does.
    const longer = tokens * 3;
    const long: Result[] = [];
    for (const mode of ['runItems', 'runItemEvents'] as const)
      long.push(await measure(service, rest, loopback, agentId, { mode, pace: 'closed loop', runs: 2, perRun: 1, tokens: longer }));
    const short: Result[] = [];
    for (const mode of ['runItems', 'runItemEvents'] as const)
      short.push(await measure(service, rest, loopback, agentId, { mode, pace: 'closed loop', runs: 2, perRun: 1, tokens }));

    const rows = results.map((r) => ({
      shape: `${r.runs} run(s) × ${r.subscribers / r.runs} sub`,
      pace: r.pace,
      subscription: r.mode,
      'node µs / token / subscriber': r.nodeUsPerTokenSubscriber.toFixed(1),
      'PostgreSQL µs / token': r.postgresUsPerToken.toFixed(1),
      'tokens/s fan-out': Math.round(r.tokensPerSecond),
      'bytes / subscriber / answer': Math.round(r.bytesPerSubscriber),
    }));
    console.log(`\nStreaming, ${tokens} tokens of ${TOKEN.length} characters per answer (embedded PostgreSQL):`);
    console.table(rows);
    const ratio = (metric: (r: Result) => number, shape: number, pace: string) => {
      const old = results.find((r) => r.runs === shape && r.pace === pace && r.mode === 'runItems')!;
      const now = results.find((r) => r.runs === shape && r.pace === pace && r.mode === 'runItemEvents')!;
      return (metric(old) / metric(now)).toFixed(1);
    };
    console.log('\nDeltas against snapshots (old ÷ new), same run:');
    console.table(
      shapes.flatMap((shape) =>
        (['closed loop', 'burst'] as const).map((pace) => ({
          shape: shape.label,
          pace,
          'node CPU per token per subscriber': `${ratio((r) => r.nodeUsPerTokenSubscriber, shape.runs, pace)}×`,
          'bytes per answer': `${ratio((r) => r.bytesPerSubscriber, shape.runs, pace)}×`,
        })),
      ),
    );
    console.log(
      `\nBytes per subscriber per answer at ${tokens} and ${longer} tokens (linear: ×${longer / tokens}; quadratic: ×${(longer / tokens) ** 2}):`,
    );
    console.table(
      (['runItems', 'runItemEvents'] as const).map((mode, i) => ({
        subscription: mode,
        [`${tokens} tokens`]: Math.round(short[i]!.bytesPerSubscriber),
        [`${longer} tokens`]: Math.round(long[i]!.bytesPerSubscriber),
        growth: `×${(long[i]!.bytesPerSubscriber / short[i]!.bytesPerSubscriber).toFixed(1)}`,
      })),
    );
  } finally {
    await service.stop();
    await loopback.close();
  }
}

await main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
