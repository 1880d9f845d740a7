import {
  type Context,
  type ContextManager,
  context as otelContext,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import type { ModelResponse } from '@rlm/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { RunTracing, tracerOf } from './run-tracing.js';

/** A context manager whose active context is the innermost `with` on the current stack. */
function stackContextManager(): ContextManager {
  const stack: Context[] = [];
  const manager: ContextManager = {
    active: () => stack.at(-1) ?? ROOT_CONTEXT,
    // biome-ignore lint/complexity/useMaxParams: the signature of OpenTelemetry's ContextManager.with
    with(context, fn, thisArg, ...args) {
      stack.push(context);
      try {
        return fn.call(thisArg, ...args);
      } finally {
        stack.pop();
      }
    },
    bind: (_context, target) => target,
    enable: () => manager,
    disable: () => manager,
  };
  return manager;
}

const response: ModelResponse = {
  text: 'ok',
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  stopReason: 'end_turn',
  model: 'test/model',
};

function spanContext(spanId: string): SpanContext {
  return { traceId: '0af7651916cd43dd8448eb211c80319c', spanId, traceFlags: TraceFlags.SAMPLED };
}

/** The span context a provider's client sees as active when called for a model call. */
async function seenByClient(
  tracing: RunTracing,
  parent: Context,
): Promise<SpanContext | undefined> {
  let seen: SpanContext | undefined;
  await tracing.modelCall(
    parent,
    { model: 'test/model', purpose: 'root', callId: 'r:1', maxTokens: undefined },
    async () => {
      seen = trace.getSpanContext(otelContext.active());
      return response;
    },
  );
  return seen;
}

describe('a model call without a registered tracer provider', () => {
  afterEach(() => {
    otelContext.disable();
  });

  it("runs the client in its parent's span context, call after call and parent after parent", async () => {
    expect(otelContext.setGlobalContextManager(stackContextManager())).toBe(true);
    const tracing = new RunTracing(tracerOf({}));
    const first = trace.setSpanContext(ROOT_CONTEXT, spanContext('b7ad6b7169203331'));
    const second = trace.setSpanContext(ROOT_CONTEXT, spanContext('00f067aa0ba902b7'));
    expect(await seenByClient(tracing, first)).toEqual(spanContext('b7ad6b7169203331'));
    expect(await seenByClient(tracing, first)).toEqual(spanContext('b7ad6b7169203331'));
    expect(await seenByClient(tracing, second)).toEqual(spanContext('00f067aa0ba902b7'));
    expect(await seenByClient(tracing, first)).toEqual(spanContext('b7ad6b7169203331'));
  });

  it('keeps what else the parent context holds', async () => {
    expect(otelContext.setGlobalContextManager(stackContextManager())).toBe(true);
    const key = Symbol('caller value');
    const parent = trace
      .setSpanContext(ROOT_CONTEXT, spanContext('b7ad6b7169203331'))
      .setValue(key, 'kept');
    let value: unknown;
    await new RunTracing(tracerOf({})).modelCall(
      parent,
      { model: 'test/model', purpose: 'root', callId: 'r:1', maxTokens: undefined },
      async () => {
        value = otelContext.active().getValue(key);
        return response;
      },
    );
    expect(value).toBe('kept');
  });

  it('gives a parent without a span an invalid span context, as a no-op span does', async () => {
    expect(otelContext.setGlobalContextManager(stackContextManager())).toBe(true);
    const seen = await seenByClient(new RunTracing(tracerOf({})), ROOT_CONTEXT);
    expect(seen?.traceId).toBe('00000000000000000000000000000000');
    expect(trace.isSpanContextValid(seen as SpanContext)).toBe(false);
  });
});
