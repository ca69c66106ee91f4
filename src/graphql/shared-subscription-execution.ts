// Run-item subscriptions execute each streamed event once for all the subscribers that asked the
// same thing, instead of once per subscriber: with fifty clients watching one answer, graphql-js
// executing every token fifty times was most of the service's streaming cost.
import {
  createSourceEventStream,
  execute,
  getOperationAST,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import { compileEventPlan, GIVE_UP, type EventPlan } from './event-plan.js';
import { markShared } from './encoded-next.js';

/**
 * The subscription fields whose events are shared. Their event resolvers, and every field of the
 * types they return (RunItem, RunItemTextDelta, their content refs), read only the event itself,
 * never the caller (context) — so one execution of an event serves every subscriber with the same
 * document, operation name and variables. A field added to these types that reads the caller would
 * break that promise: keep it true or take the field out of this set.
 */
const SHARED_SUBSCRIPTION_FIELDS = new Set(['runItems', 'runItemEvents']);

type Result = ExecutionResult | Promise<ExecutionResult>;

/**
 * Event → document → (operation name, variables, workspace) → its execution. Keyed weakly by the
 * event: the event bus hands every listener the same object (in process, and once parsed per Redis
 * message), so the memo lives exactly as long as some feed still holds the event. Documents are
 * shared because Yoga caches parsed documents by their text.
 */
const executions = new WeakMap<object, WeakMap<DocumentNode, Map<string, Result>>>();

/**
 * Schema → document → (operation name, variables) → its compiled event plan (null: `execute` runs
 * every event). Compiled at the first subscribe, reused by every later subscriber with the same key.
 * The variables usually name the run, so one document would gather a plan per run ever watched for
 * as long as Yoga keeps the document: each document keeps its PLANS_PER_DOCUMENT most recently used.
 */
const plans = new WeakMap<object, WeakMap<DocumentNode, Map<string, EventPlan | null>>>();
export const PLANS_PER_DOCUMENT = 256;

/** How many plans are kept for the document (for tests). */
export function plansKept(args: Pick<ExecutionArgs, 'schema' | 'document'>): number {
  return plans.get(args.schema)?.get(args.document)?.size ?? 0;
}

export function planOf(args: ExecutionArgs, key: string): EventPlan | null {
  // A custom field or type resolver for the whole execution is not something the plan calls.
  if (args.fieldResolver || args.typeResolver) return null;
  let byDocument = plans.get(args.schema);
  if (!byDocument) plans.set(args.schema, (byDocument = new WeakMap()));
  let byKey = byDocument.get(args.document);
  if (!byKey) byDocument.set(args.document, (byKey = new Map()));
  let plan = byKey.get(key);
  if (plan === undefined) {
    plan = compileEventPlan(args.schema, args.document, args.operationName, args.variableValues);
    // The least recently used plan goes (a Map iterates in insertion order; a hit moves to the end).
    if (byKey.size >= PLANS_PER_DOCUMENT) byKey.delete(byKey.keys().next().value!);
  } else byKey.delete(key);
  byKey.set(key, plan);
  return plan;
}

/**
 * An event's execution: by its plan, or by graphql-js `execute` when there is none or the plan gives
 * up on this event (an error to report, a value it does not complete the same way) — the same
 * result either way.
 */
export function executeEvent(args: ExecutionArgs, plan: EventPlan | null, payload: unknown): Result {
  const run = () => execute({ ...args, rootValue: payload });
  if (!plan) return run();
  const planned = plan.run(payload, args.contextValue);
  if (planned === GIVE_UP) return run();
  return planned instanceof Promise ? planned.catch(run) : planned;
}

/**
 * A Yoga plugin: subscriptions to one of SHARED_SUBSCRIPTION_FIELDS are run by sharedSubscribe
 * instead of graphql-js `subscribe`; the other plugins' subscription hooks (error masking, input
 * rules) still wrap it, per subscriber.
 */
export function useSharedSubscriptionExecution(): Plugin {
  return {
    onSubscribe({ args, setSubscribeFn }) {
      if (sharesEvents(args)) setSubscribeFn(sharedSubscribe);
    },
  };
}

function sharesEvents(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  if (operation?.operation !== 'subscription') return false;
  // Validation allows a subscription one root field; anything else (a fragment spread at the root)
  // takes the ordinary path.
  const [root, ...others] = operation.selectionSet.selections;
  return others.length === 0 && root?.kind === Kind.FIELD && SHARED_SUBSCRIPTION_FIELDS.has(root.name.value);
}

/**
 * graphql-js `subscribe` (the same source stream, errors, completion, return() and backpressure:
 * events are executed as they are pulled), with each event's execution looked up in `executions`
 * before it is run.
 */
async function sharedSubscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  // The caller's workspace joins the key, so a subscriber is only ever served an execution made for
  // its own workspace (the feed already answered not_found to anyone outside the run's workspace).
  const workspace = await workspaceOf(args.contextValue);
  const operationKey = JSON.stringify([args.operationName ?? null, args.variableValues ?? null]);
  const key = JSON.stringify([args.operationName ?? null, args.variableValues ?? null, workspace]);
  const plan = planOf(args, operationKey);
  const run = (payload: unknown) => executeEvent(args, plan, payload);
  return mapAsyncIterator(stream as AsyncGenerator<unknown, void, void>, (payload) => {
    if (workspace === null || typeof payload !== 'object' || payload === null) return run(payload);
    let byDocument = executions.get(payload);
    if (!byDocument) executions.set(payload, (byDocument = new WeakMap()));
    let byKey = byDocument.get(args.document);
    if (!byKey) byDocument.set(args.document, (byKey = new Map()));
    let result = byKey.get(key);
    if (!result) byKey.set(key, (result = shared(run(payload))));
    return result;
  });
}

/** Marks an execution served to every subscriber with the key, so its JSON is made once (encoded-next). */
function shared(result: Result): Result {
  if (result instanceof Promise) return result.then((resolved) => markShared(resolved));
  return markShared(result);
}

/** The caller's workspace (the subscribe resolver has authenticated it already); null: do not share. */
async function workspaceOf(context: unknown): Promise<string | null> {
  const call = (context as Partial<GraphQLContext> | null)?.call;
  if (typeof call !== 'function') return null;
  try {
    return (await call()).actor?.workspaceId ?? null;
  } catch {
    return null;
  }
}

/**
 * As graphql-js maps a source stream to its responses (its own helper is internal): the mapping of
 * an event runs when the consumer pulls it, a mapping error closes the source, and return()/throw()
 * reach the source.
 */
function mapAsyncIterator<T, U>(
  iterable: AsyncIterable<T>,
  map: (value: T) => U | Promise<U>,
): AsyncIterableIterator<U> & { return(): Promise<IteratorResult<U>>; throw(error: unknown): Promise<IteratorResult<U>> } {
  const iterator = iterable[Symbol.asyncIterator]();
  const returnIgnoringErrors = async () => {
    try {
      await iterator.return?.();
    } catch {
      // Keep the original error when closing the source fails too.
    }
  };
  const mapResult = async (result: IteratorResult<T>): Promise<IteratorResult<U>> => {
    if (result.done) return result;
    try {
      return { value: await map(result.value), done: false };
    } catch (error) {
      await returnIgnoringErrors();
      throw error;
    }
  };
  return {
    async next() {
      return mapResult(await iterator.next());
    },
    async return() {
      return typeof iterator.return === 'function' ? mapResult(await iterator.return()) : { value: undefined, done: true };
    },
    async throw(error: unknown) {
      if (typeof iterator.throw === 'function') return mapResult(await iterator.throw(error));
      await returnIgnoringErrors();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
