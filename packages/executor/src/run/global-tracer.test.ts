import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { eventLog, isSubCall, repl, testRLM } from '../testing/rlm-test-kit.js';
import { spanRecording } from '../testing/span-recording.js';

/** Two turns with a block each (one calls `llm_query`), then the answer. */
function threeTurns() {
  return scriptedModel((request) => {
    if (isSubCall(request)) return 'sub answer';
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (turn === 0) return repl('x = 1 + 1; print(x)');
    if (turn === 1) return repl('print(await llm_query("q"))');
    return 'FINAL(done)';
  });
}

/** Each span as its name, its parent's name, its attributes and status (ids and times differ). */
function shape(spans: readonly ReadableSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans
    .map((span) => {
      const parent = byId.get(span.parentSpanContext?.spanId ?? '');
      const attributes = span.attributes;
      return { name: span.name, parent: parent?.name ?? null, attributes, status: span.status };
    })
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** Events without what differs from run to run (ids, clock, durations). */
function comparable(events: readonly RunEvent[]): unknown[] {
  const varying = new Set(['runId', 'rootRunId', 'parentRunId', 'callId', 'at']);
  return events.map((event) =>
    Object.fromEntries(
      Object.entries(event).filter(
        ([key]) => !varying.has(key) && !/(durationMs|executionTime)$/.test(key),
      ),
    ),
  );
}

describe('spans through the global tracer provider', () => {
  afterEach(() => {
    trace.disable();
  });

  it('records the same spans as a provider given in the config, once one is registered', async () => {
    const given = spanRecording();
    await testRLM({
      model: threeTurns(),
      tracerProvider: given.tracerProvider,
      generateId: () => 'run',
    }).completion('ctx');
    const global = spanRecording();
    expect(trace.setGlobalTracerProvider(global.tracerProvider)).toBe(true);
    await testRLM({ model: threeTurns(), generateId: () => 'run' }).completion('ctx');
    expect(global.spans().length).toBeGreaterThanOrEqual(7);
    expect(shape(global.spans())).toEqual(shape(given.spans()));
  });

  it('records the spans started after a provider is registered in the middle of a run', async () => {
    const global = spanRecording();
    await testRLM({
      model: threeTurns(),
      onEvent: (event) => {
        if (event.type === 'iteration-start' && event.iteration === 1) {
          trace.setGlobalTracerProvider(global.tracerProvider);
        }
      },
    }).completion('ctx');
    const spans = global.spans();
    // Turn 1's iteration span started before the provider: turn 1's model call and block, started
    // after it, have no recorded parent; turn 2 is whole.
    const iterations = spans.filter((span) => span.name === 'rlm.iteration');
    expect(iterations.map((span) => span.attributes['rlm.iteration'])).toEqual([2]);
    const roots = spans.filter((span) => span.parentSpanContext === undefined);
    expect(roots.map((span) => span.name).sort()).toEqual([
      'chat scripted/model',
      'execute_tool repl',
      'rlm.iteration',
    ]);
    const block = roots.find((span) => span.name === 'execute_tool repl');
    const sub = spans.find((span) => span.name === 'execute_tool llm_query');
    expect(sub?.parentSpanContext?.spanId).toBe(block?.spanContext().spanId);
    expect(spans.some((span) => span.name === 'invoke_agent rlm')).toBe(false);
  });

  it('gives a run without any provider the same events as one whose tracer records nothing', async () => {
    const quiet = eventLog();
    await testRLM({
      model: threeTurns(),
      tracer: new ProxyTracerProvider().getTracer('explicit no-op'),
      onEvent: quiet.onEvent,
    }).completion('ctx');
    const none = eventLog();
    await testRLM({ model: threeTurns(), onEvent: none.onEvent }).completion('ctx');
    expect(comparable(none.events)).toEqual(comparable(quiet.events));
    expect(none.events.length).toBeGreaterThan(10);
  });
});
