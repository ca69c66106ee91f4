// A run's subscriber: `runItemEvents` (deltas: the new text with its offset) when the service has it,
// else `runItems` (snapshots of the whole item at each change). Either way the text of each
// text_message item goes through a StampReader, and every token read back yields its delay (receipt
// time − the model's emission stamp).
import { parse } from 'graphql';
import type { Rest, Subscribers } from '../blackbox/clients.js';
import { StampReader, sinceEpoch } from './stamps.js';

export type Transport = 'deltas' | 'snapshots';

const SNAPSHOTS = parse(`subscription WorkloadRunItems($runId: ID!) {
  runItems(runId: $runId) { __typename id ordinal kind state content }
}`);

const DELTAS = parse(`subscription WorkloadRunItemEvents($runId: ID!) {
  runItemEvents(runId: $runId) {
    __typename
    ... on RunItem { id ordinal kind state content }
    ... on RunItemTextDelta { ordinal itemId member offset text }
  }
}`);

/** Deltas when the schema's Subscription type has `runItemEvents` (and they are not refused by `forceSnapshots`). */
export async function chooseTransport(rest: Rest, forceSnapshots: boolean): Promise<Transport> {
  if (forceSnapshots) return 'snapshots';
  const answer = await rest.ok('POST', '/graphql', { query: '{ __type(name: "Subscription") { fields { name } } }' });
  const fields: { name: string }[] = answer.data?.__type?.fields ?? [];
  return fields.some((field) => field.name === 'runItemEvents') ? 'deltas' : 'snapshots';
}

interface ItemEvent {
  __typename: string;
  id?: string;
  kind?: string;
  content?: { text?: unknown } | null;
  itemId?: string;
  member?: string;
  offset?: number;
  text?: string;
}

export interface Received {
  /** Receipt times of the run's tokens (ms since the epoch). */
  receipts: number[];
  /** Delays of the run's tokens, ms. */
  delays: number[];
  /** Deltas that started past the text read so far (lost deltas). */
  gaps: number;
}

/** Subscribes to one run's items until the subscription completes (the run sealed or waiting). */
export async function watchRun(
  subscribers: Subscribers,
  transport: Transport,
  runId: string,
  epoch: number,
  into: Received,
): Promise<void> {
  const readers = new Map<string, StampReader>();
  const reader = (itemId: string) => readers.get(itemId) ?? readers.set(itemId, new StampReader()).get(itemId)!;
  const take = (stamps: number[]) => {
    if (stamps.length === 0) return;
    const now = sinceEpoch(epoch);
    for (const stamp of stamps) {
      into.receipts.push(now);
      into.delays.push(now - stamp);
    }
  };
  const onItem = (item: ItemEvent) => {
    if (item.__typename === 'RunItemTextDelta') {
      if (item.member === 'text') take(reader(item.itemId!).append(item.text ?? '', item.offset ?? 0));
    } else if (item.kind === 'text_message' && typeof item.content?.text === 'string') take(reader(item.id!).append(item.content.text, 0));
  };
  if (transport === 'deltas')
    await subscribers.subscribe<{ runItemEvents: ItemEvent }>(DELTAS, { runId }, (event) => onItem(event.runItemEvents));
  else await subscribers.subscribe<{ runItems: ItemEvent }>(SNAPSHOTS, { runId }, (event) => onItem(event.runItems));
  for (const r of readers.values()) into.gaps += r.gaps;
}
