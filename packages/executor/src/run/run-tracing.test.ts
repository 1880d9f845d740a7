import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { type ReplEnvironment, RlmError, type RunEventOf } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { parseRLMConfig } from '../config/rlm-config.js';
import { runTree } from '../create-rlm.js';
import { openSandbox } from '../loop/open-sandbox.js';
import type { SessionBinding } from '../session/session-binding.js';
import { eventLog, isSubCall, repl, testRLM } from '../testing/rlm-test-kit.js';
import { spanRecording } from '../testing/span-recording.js';

function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const parentId = span.parentSpanContext?.spanId;
  return spans.find((candidate) => candidate.spanContext().spanId === parentId);
}

function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

/** Root: one block calling llm_query and rlm_query; the child (depth 1) runs one block. */
function treeModel() {
  const code = [
    'const answer = __rlm.depth === 0 ? "root done" : "child done"',
    'if (__rlm.depth === 0) {',
    '  print(await llm_query("q"))',
    '  print(await rlm_query("sub task"))',
    '}',
  ].join('\n');
  return scriptedModel(
    (request) => {
      if (isSubCall(request)) return 'sub answer';
      const ran = request.messages.some((message) => message.content.includes('REPL output'));
      return ran ? 'FINAL_VAR(answer)' : repl(code);
    },
    { pricing: { inputPerMTok: 1, outputPerMTok: 2 } },
  );
}

describe('OpenTelemetry spans of a run', () => {
  it('nests run, iteration, block, sub-call, model call and child run spans in one trace', async () => {
    const { tracerProvider, spans } = spanRecording();
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: treeModel(),
      maxDepth: 2,
      tracerProvider,
      onEvent,
    }).completion('ctx');
    expect(result.answer).toBe('root done');
    const all = spans();
    const runs = named(all, 'invoke_agent rlm');
    expect(runs).toHaveLength(2);
    const root = runs.find((span) => span.attributes['rlm.depth'] === 0);
    const child = runs.find((span) => span.attributes['rlm.depth'] === 1);
    expect(root?.parentSpanContext).toBeUndefined();
    expect(new Set(all.map((span) => span.spanContext().traceId)).size).toBe(1);

    const llm = named(all, 'execute_tool llm_query')[0];
    const rlm = named(all, 'execute_tool rlm_query')[0];
    const block = llm && parentOf(all, llm);
    expect(block?.name).toBe('execute_tool repl');
    expect(parentOf(all, rlm!)).toBe(block);
    expect(parentOf(all, block!)?.name).toBe('rlm.iteration');
    expect(parentOf(all, parentOf(all, block!)!)).toBe(root);
    // llm_query's model call under its sub-call; the child's run under rlm_query.
    const subChat = all.find(
      (span) => span.name.startsWith('chat ') && parentOf(all, span) === llm,
    );
    expect(subChat?.attributes['rlm.purpose']).toBe('sub');
    expect(parentOf(all, child!)).toBe(rlm);
    const childIterations = named(all, 'rlm.iteration').filter(
      (span) => parentOf(all, span) === child,
    );
    expect(childIterations).toHaveLength(2);

    // The events carry the trace: every run-start names its own span.
    const starts = events.filter(
      (event): event is RunEventOf<'run-start'> => event.type === 'run-start',
    );
    expect(starts.map((event) => event.traceId)).toEqual([
      root?.spanContext().traceId,
      root?.spanContext().traceId,
    ]);
    expect(starts.map((event) => event.spanId).sort()).toEqual(
      [root?.spanContext().spanId, child?.spanContext().spanId].sort(),
    );
  });

  it('gives model call spans the GenAI attributes: operation, model, tokens with cache, cost, finish reason', async () => {
    const { tracerProvider, spans } = spanRecording();
    const model = scriptedModel(
      [
        repl('print(1)'),
        {
          text: 'FINAL(7)',
          usage: { inputTokens: 100, cacheReadTokens: 900, cacheWriteTokens: 50, outputTokens: 20 },
        },
      ],
      { pricing: { inputPerMTok: 1, outputPerMTok: 1 }, maxOutputTokens: 4_000 },
    );
    await testRLM({ model, tracerProvider }).completion('ctx');
    const chat = named(spans(), 'chat scripted/model').at(-1);
    expect(chat?.kind).toBe(2); // SpanKind.CLIENT
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted/model',
      'gen_ai.request.max_tokens': 4_000,
      'gen_ai.response.model': 'scripted/model',
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.usage.input_tokens': 1_050,
      'gen_ai.usage.cache_read.input_tokens': 900,
      'gen_ai.usage.cache_creation.input_tokens': 50,
      'gen_ai.usage.output_tokens': 20,
      'rlm.purpose': 'root',
    });
    expect(chat?.attributes['rlm.cost_usd']).toBeGreaterThan(0);
    const run = named(spans(), 'invoke_agent rlm')[0];
    expect(run?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'rlm.status': 'completed',
      'rlm.iterations': 2,
    });
    expect(run?.attributes['gen_ai.usage.output_tokens']).toBeGreaterThanOrEqual(20);
  });

  it('marks the model call, iteration and run spans as errors when the model fails', async () => {
    const { tracerProvider, spans } = spanRecording();
    const failure = new RlmError({
      code: 'model.server_error',
      message: 'boom',
      details: { status: 500 },
    });
    const result = await testRLM({ model: scriptedModel([failure]), tracerProvider }).completion(
      'ctx',
    );
    expect(result.status).toBe('error');
    for (const name of ['chat scripted/model', 'rlm.iteration', 'invoke_agent rlm']) {
      const span = named(spans(), name)[0];
      expect(span?.status.code, name).toBe(2); // SpanStatusCode.ERROR
      expect(span?.attributes['error.type'], name).toBe('model.server_error');
    }
  });

  it('records a block that threw as an error span', async () => {
    const { tracerProvider, spans } = spanRecording();
    const model = scriptedModel([repl('throw new TypeError("bad")'), 'FINAL(x)']);
    await testRLM({ model, tracerProvider, firstTurnGuard: false }).completion('ctx');
    const block = named(spans(), 'execute_tool repl')[0];
    expect(block?.status.code).toBe(2);
    expect(block?.attributes['error.type']).toBe('TypeError');
  });

  it('ends the run span as an error when ending the run throws (a session whose finish rejects)', async () => {
    const { tracerProvider, spans } = spanRecording();
    const config = parseRLMConfig({
      model: scriptedModel([repl('print(1)'), 'FINAL(done)']),
      tracerProvider,
      isolation: 'inline',
    });
    const lifetime = new AbortController();
    let sandbox: Promise<ReplEnvironment> | undefined;
    // A session binding as the session lends it, but whose `finish` breaks its promise not to reject.
    const session: SessionBinding = {
      contextIndex: 0,
      historyCount: 0,
      open: ({ payload, functions, meta }) => {
        sandbox = openSandbox(config, {
          context: payload,
          functions,
          dispatcher: false,
          meta,
          signal: lifetime.signal,
          repl: 'javascript',
        });
        return sandbox;
      },
      finish: () => Promise.reject(new Error('finish failed')),
    };
    try {
      await expect(runTree(config, { context: 'ctx', session })).rejects.toThrow('finish failed');
    } finally {
      lifetime.abort();
      await sandbox?.then((ready) => ready.dispose());
    }
    const runs = named(spans(), 'invoke_agent rlm');
    expect(runs).toHaveLength(1);
    expect(runs[0]?.ended).toBe(true);
    expect(runs[0]?.status).toEqual({ code: 2, message: 'Error: finish failed' }); // SpanStatusCode.ERROR
    expect(runs[0]?.attributes['error.type']).toBe('Error');
    // Its children ended before it, as in a run that returns.
    expect(named(spans(), 'rlm.iteration')).toHaveLength(2);
  });

  it('uses an injected tracer, and puts no trace id in events when nothing records', async () => {
    const { tracerProvider, spans } = spanRecording();
    const tracer = tracerProvider.getTracer('mine');
    await testRLM({ model: scriptedModel([repl('1'), 'FINAL(1)']), tracer }).completion('ctx');
    expect(spans()[0]?.instrumentationScope.name).toBe('mine');

    // No tracer and no registered SDK: the global API's no-op spans record nothing.
    const { events, onEvent } = eventLog();
    await testRLM({ model: scriptedModel([repl('1'), 'FINAL(1)']), onEvent }).completion('ctx');
    const start = events.find((event) => event.type === 'run-start');
    expect(start).not.toHaveProperty('traceId');
  });
});
