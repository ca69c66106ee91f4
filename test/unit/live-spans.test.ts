// The live span processor's memory of running attempts (src/traces/live-spans.ts): a follower that
// arrives mid-attempt is sent the spans held for its trace again, and once a run's spans are stored
// (or taken into its sealing statement) they are forgotten — that run's only, whichever trace they
// share with other runs (a subagent's child run shares its parent's).
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { context, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { LiveSpanProcessor, type LiveSpan } from '../../src/traces/live-spans.js';
import { ATTR } from '../../src/traces/names.js';

describe('the live span processor', () => {
  it('replays the spans held for a trace, and forgets exactly the stored run’s', () => {
    const sent: LiveSpan[] = [];
    const live = new LiveSpanProcessor((event) => sent.push(event));
    const tracer = new BasicTracerProvider({ spanProcessors: [live] }).getTracer('test');
    const runSpan = (runId: string, name: string, parent?: ReturnType<typeof tracer.startSpan>) =>
      tracer.startSpan(
        name,
        { attributes: { [ATTR.runId]: runId, [ATTR.workspaceId]: 'wsp_1' } },
        parent ? trace.setSpan(context.active(), parent) : undefined,
      );

    const parent = runSpan('run_parent', 'invoke_agent parent');
    const child = runSpan('run_child', 'invoke_agent child', parent);
    runSpan('run_parent', 'chat model', parent).end();
    const other = runSpan('run_other', 'invoke_agent other');
    const traceOf = (span: typeof parent) => span.spanContext().traceId;
    expect(traceOf(child)).toBe(traceOf(parent));

    const replayed = (traceId: string) => {
      sent.length = 0;
      live.replay(traceId);
      return sent.map((event) => `${event.span.name}:${event.open ? 'open' : 'ended'}`).sort();
    };
    expect(replayed(traceOf(parent))).toEqual(['chat model:ended', 'invoke_agent child:open', 'invoke_agent parent:open']);

    live.stored('run_parent');
    expect(replayed(traceOf(parent))).toEqual(['invoke_agent child:open']);
    expect(replayed(traceOf(other))).toEqual(['invoke_agent other:open']);
    // A run stored twice (a retried attempt's spans, then the seal), or never seen, changes nothing.
    live.stored('run_parent');
    live.stored('run_unknown');
    expect(replayed(traceOf(other))).toEqual(['invoke_agent other:open']);

    // A span started after its run's spans were stored is held again until the next time.
    runSpan('run_parent', 'chat model again', parent);
    expect(replayed(traceOf(parent))).toEqual(['chat model again:open', 'invoke_agent child:open']);
    live.stored('run_child');
    live.stored('run_parent');
    expect(replayed(traceOf(parent))).toEqual([]);
    child.end();
    other.end();
  });
});
