// The compiled event plan against graphql-js `execute`: for many documents (aliases, fragments,
// inline fragments on the event union, @include/@skip with variables, __typename, nested lists) and
// many events (each item kind, deltas, nulls, dates as Date or ISO text, broken values that make
// errors), the shared subscription's execution of an event is deep-equal to `execute`'s and its JSON
// is the same text — by the plan where it covers the event, by `execute` where it gives up.
import { describe, expect, it } from 'vitest';
import { execute, parse, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { getSchema } from '../../src/graphql/schema.js';
import { compileEventPlan, GIVE_UP } from '../../src/graphql/event-plan.js';
import { executeEvent, planOf, plansKept, PLANS_PER_DOCUMENT } from '../../src/graphql/shared-subscription-execution.js';

const schema = getSchema();

const ITEM_FIELDS = `id ordinal kind state content contentRefs
  contentRefList { name id mediaType preview sizeBytes truncated assetId __typename }
  firstStreamId lastStreamId startedAt endedAt __typename`;

/** [document, operation name, variable sets] */
const DOCUMENTS: [string, string | undefined, Record<string, unknown>[]][] = [
  [`subscription($id: ID!) { runItems(runId: $id) { ${ITEM_FIELDS} } }`, undefined, [{ id: 'r1' }]],
  [
    `subscription($id: ID!) { runItemEvents(runId: $id) { __typename ... on RunItem { ${ITEM_FIELDS} } ... on RunItemTextDelta { ordinal itemId member offset text streamId previousStreamId __typename } } }`,
    undefined,
    [{ id: 'r1' }],
  ],
  [
    `subscription Aliased($id: ID!) {
      events: runItemEvents(runId: $id) {
        t: __typename
        ...Snapshot
        ... on RunItemTextDelta { o: ordinal ordinal piece: text streamId }
        ... on Node { nodeId: id }
        ...Snapshot
      }
    }
    fragment Snapshot on RunItem { ordinal n: ordinal state lastStreamId refs: contentRefList { name size: sizeBytes } ...More }
    fragment More on RunItem { state content ordinal }`,
    'Aliased',
    [{ id: 'r1' }],
  ],
  [
    `subscription Directives($id: ID!, $withText: Boolean!, $noRefs: Boolean = false, $skipDelta: Boolean!) {
      runItemEvents(runId: $id) {
        __typename @include(if: $withText)
        ... on RunItem @skip(if: $noRefs) { contentRefList { name @include(if: $withText) truncated } }
        ... on RunItem { ordinal content @include(if: $withText) endedAt @skip(if: true) kind @include(if: false) }
        ...Delta @skip(if: $skipDelta)
      }
    }
    fragment Delta on RunItemTextDelta { text @include(if: $withText) offset streamId @skip(if: $noRefs) }`,
    'Directives',
    [
      { id: 'r1', withText: true, skipDelta: false },
      { id: 'r1', withText: false, noRefs: true, skipDelta: false },
      { id: 'r1', withText: true, noRefs: true, skipDelta: true },
      { id: 'r1', withText: false, noRefs: false, skipDelta: true },
    ],
  ],
  [
    `subscription Other($id: ID!) { runItems(runId: $id) { ordinal } }
     subscription Picked($id: ID!) { item: runItems(runId: $id) { ...on RunItem { kind k2: kind } ... { state } __typename } }`,
    'Picked',
    [{ id: 'r1' }],
  ],
  [
    `subscription($id: ID!) { runItemEvents(runId: $id) { ...Event } }
     fragment Event on RunItemEvent { __typename ... on RunItemTextDelta { text } ... on RunItem { ordinal startedAt } }`,
    undefined,
    [{ id: 'r1' }],
  ],
];

const KINDS = [
  'approval_request',
  'client_call',
  'context_compaction',
  'error',
  'media_description',
  'memory_recall',
  'output',
  'provider_wait',
  'question',
  'reasoning',
  'review',
  'subagent_run',
  'text_message',
  'tool_call',
  'tool_result',
  'user_message',
];
const STATES = ['completed', 'failed', 'in_progress'];
const REF = { id: 'ref_1', media_type: 'text/plain', preview: 'first "chars"\u2028', size_bytes: 123456, truncated: true };

const snapshot = (i: number, overrides: Record<string, unknown> = {}) => ({
  id: `item_${i}`,
  ordinal: i,
  kind: KINDS[i % KINDS.length],
  state: STATES[i % STATES.length],
  content: [{ text: `answer ${i} ✓ "quoted" \\ 😀` }, { arguments: { a: [1, null, { b: 'x' }] } }, {}, { text: '' }][i % 4],
  contentRefs: [{}, { result: { ...REF, asset_id: 'asset_1' } }, { text: REF, result: { ...REF, truncated: false, asset_id: null } }][
    i % 3
  ],
  firstStreamId: i % 2 ? `s${i}` : null,
  lastStreamId: i % 5 ? `s${i + 1}` : null,
  startedAt: i % 2 ? new Date(Date.UTC(2026, 0, 1, 0, 0, i)) : '2026-01-01T00:00:00.000Z',
  endedAt: i % 3 ? null : new Date(Date.UTC(2026, 0, 2)),
  ...overrides,
});
const delta = (i: number, overrides: Record<string, unknown> = {}) => ({
  textDelta: true,
  ordinal: i,
  itemId: `item_${i}`,
  member: 'text',
  offset: i * 7,
  text: ['tok', ' "quote"', '\n\u2028€😀', ''][i % 4],
  streamId: `s${i + 1}`,
  previousStreamId: `s${i}`,
  ...overrides,
});

/** Events the plan covers: its result must be its own. */
const ORDINARY = [...KINDS.map((_, i) => snapshot(i)), ...Array.from({ length: 8 }, (_, i) => delta(i))];
/** Events whose execution has errors, or a value the plan does not read as `execute` does (a method): `execute` answers them. */
const BROKEN = [
  snapshot(1, { content: null }),
  snapshot(2, { content: undefined }),
  snapshot(3, { ordinal: 'three' }),
  snapshot(4, { ordinal: 1.5 }),
  snapshot(5, { kind: 'no_such_kind' }),
  snapshot(6, { startedAt: 'not a date' }),
  snapshot(7, { contentRefs: 'abc' }),
  snapshot(8, { contentRefs: { text: { ...REF, preview: null } } }),
  snapshot(9, { lastStreamId: () => 's1' }),
  snapshot(10, { id: null }),
  delta(1, { text: null }),
  delta(2, { offset: 'x' }),
];

const resultOf = async (result: ExecutionResult | Promise<ExecutionResult>) => result;

describe('the compiled event plan', () => {
  it('builds the same result as execute, deep-equal and as the same JSON text', async () => {
    let planned = 0;
    let gaveUp = 0;
    let checked = 0;
    for (const [text, operationName, variableSets] of DOCUMENTS) {
      const document = parse(text);
      for (const variableValues of variableSets) {
        const plan = compileEventPlan(schema, document, operationName, variableValues);
        expect(plan, text).not.toBeNull();
        for (const event of [...ORDINARY, ...BROKEN]) {
          const contextValue = {};
          const args: ExecutionArgs = { schema, document, operationName, variableValues, contextValue, rootValue: event };
          const expected = await resultOf(execute(args));
          const actual = await resultOf(executeEvent(args, plan, event));
          expect(actual).toStrictEqual(expected);
          expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
          // Whether the plan itself answered: it must, for an event without errors.
          const own = plan!.run(event, contextValue);
          const ownResult =
            own === GIVE_UP
              ? GIVE_UP
              : ((await (own as Promise<ExecutionResult>).then?.(
                  (r) => r,
                  () => GIVE_UP,
                )) ?? own);
          if (ownResult === GIVE_UP) gaveUp++;
          else {
            planned++;
            expect(ownResult).toStrictEqual(expected);
            expect(JSON.stringify(ownResult)).toBe(JSON.stringify(expected));
          }
          if (ORDINARY.includes(event) && !expected.errors) expect(ownResult, `${text} ${JSON.stringify(event)}`).not.toBe(GIVE_UP);
          if (expected.errors) expect(ownResult).toBe(GIVE_UP);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(planned).toBeGreaterThan(200);
    expect(gaveUp).toBeGreaterThan(20);
  });

  it('answers synchronously when no resolver is asynchronous, and by a promise when one is (the node id)', async () => {
    const event = snapshot(1);
    const withoutId = compileEventPlan(schema, parse(`subscription { runItems(runId: "r") { ordinal content } }`), undefined, {})!;
    const withId = compileEventPlan(schema, parse(`subscription { runItems(runId: "r") { id ordinal } }`), undefined, {})!;
    expect(withoutId.run(event, {})).not.toBeInstanceOf(Promise);
    const idResult = withId.run(event, {});
    expect(idResult).toBeInstanceOf(Promise);
    const expected = await execute({
      schema,
      document: parse(`subscription { runItems(runId: "r") { id ordinal } }`),
      rootValue: event,
      contextValue: {},
    });
    expect(await idResult).toStrictEqual(expected);
  });

  it('has no plan for an operation whose variables do not coerce', () => {
    const document = parse(`subscription($id: ID!) { runItems(runId: $id) { ordinal } }`);
    expect(compileEventPlan(schema, document, undefined, {})).toBeNull();
    expect(compileEventPlan(schema, document, undefined, { id: { not: 'an id' } })).toBeNull();
  });
});

describe('the plans kept per document', () => {
  it('are the most recently used, at most PLANS_PER_DOCUMENT, however many runs were watched', () => {
    const document = parse(`subscription($id: ID!) { runItems(runId: $id) { ordinal } }`);
    const argsFor = (id: string): ExecutionArgs => ({ schema, document, variableValues: { id } });
    const keyOf = (id: string) => JSON.stringify([null, { id }]);
    const first = planOf(argsFor('run-0'), keyOf('run-0'));
    for (let run = 1; run < 3 * PLANS_PER_DOCUMENT; run++) {
      planOf(argsFor(`run-${run}`), keyOf(`run-${run}`));
      // The first run's subscribers keep coming: its plan stays the one compiled for it.
      if (run % 16 === 0) expect(planOf(argsFor('run-0'), keyOf('run-0'))).toBe(first);
    }
    expect(plansKept({ schema, document })).toBe(PLANS_PER_DOCUMENT);
    expect(planOf(argsFor('run-0'), keyOf('run-0'))).toBe(first);
  });
});
