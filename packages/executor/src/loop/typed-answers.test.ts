import { createStore } from '@rlm/memory';
import type { ModelRequest, RLMChatCompletion } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { memoryTrajectorySink, type RLMSession, replay } from '../index.js';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';

const invoice = z.object({ customer: z.string(), total: z.number() });

/** The note the loop added after turn `index` (the message before the next turn prompt). */
function noteBefore(request: ModelRequest | undefined): string {
  return request?.messages.at(-2)?.content ?? '';
}

describe('typed answers (output schema)', () => {
  it('answers with the parsed value of a FINAL_VAR object, typed by the schema', async () => {
    const model = scriptedModel([
      repl('const result = { customer: "ACME", total: 12.5 }'),
      'FINAL_VAR(result)',
    ]);
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('ctx', {
      query: 'the invoice',
      output: invoice,
    });
    expectTypeOf(result.answer).toEqualTypeOf<{ customer: string; total: number } | null>();
    expect(result).toMatchObject({
      status: 'completed',
      answer: { customer: 'ACME', total: 12.5 },
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'final-answer',
        answer: '{"customer":"ACME","total":12.5}',
      }),
    );
  });

  it('refuses a FINAL that does not match, tells the model where and why, and goes on', async () => {
    const model = scriptedModel([
      repl('print(context.length)'),
      'FINAL({"customer": "ACME", "total": "12 USD"})',
      'FINAL({"customer": "ACME", "total": 12})',
    ]);
    const result = await testRLM({ model }).completion('ctx', { output: invoice });
    expect(result).toMatchObject({
      status: 'completed',
      answer: { customer: 'ACME', total: 12 },
      iterations: 3,
    });
    const note = noteBefore(model.requests[2]);
    expect(note).toContain('Your final answer was not accepted');
    expect(note).toContain(
      'at total: Invalid input: expected number, received string; got "12 USD"',
    );
  });

  it('checks FINAL(value) called in code, and applies transforms to the typed answer', async () => {
    const schema = z.object({ day: z.string().transform((text) => text.toUpperCase()) });
    const model = scriptedModel([repl('FINAL({ day: "monday" })')]);
    const result = await testRLM({ model, firstTurnGuard: false }).completion('ctx', {
      output: schema,
    });
    expectTypeOf(result.answer).toEqualTypeOf<{ day: string } | null>();
    expect(result.answer).toEqual({ day: 'MONDAY' });
  });

  it('describes the expected shape in the root system prompt only', async () => {
    const model = scriptedModel([
      repl('const child = await rlm_query("sub task", { context: "x" })'),
      repl('FINAL({ customer: "A", total: 1 })'),
    ]);
    const childModel = model;
    await testRLM({ model: childModel, maxDepth: 2, output: invoice }).completion('ctx');
    const root = model.requests[0]?.system ?? '';
    expect(root).toContain('## Answer format');
    expect(root).toContain('"total": {\n      "type": "number"');
    const child = model.requests.find((request) => request.system !== root);
    expect(child?.system).not.toContain('## Answer format');
  });

  it('takes the configured output for every completion, typed on the RLM', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL(["a", "b"])']);
    const rlm = testRLM({ model, output: z.array(z.string()) });
    const result = await rlm.completion('ctx');
    expectTypeOf(result.answer).toEqualTypeOf<string[] | null>();
    expect(result.answer).toEqual(['a', 'b']);
    expectTypeOf(rlm.session()).toEqualTypeOf<RLMSession<z.ZodArray<z.ZodString>>>();
  });

  it('types the answers of a session by the configured output', async () => {
    const model = scriptedModel([repl('const n = 7'), 'FINAL_VAR(n)', 'FINAL(n is 7)', 'FINAL(8)']);
    const session = testRLM({ model, output: z.number() }).session();
    try {
      expect((await session.completion('first')).answer).toBe(7);
      const second = await session.completion('second');
      expect(second.answer).toBe(8);
      expect(noteBefore(model.requests[3])).toContain('not accepted');
    } finally {
      await session.close();
    }
  });

  it('keeps plain text answers without an output schema', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL({"a": 1})']);
    const result = await testRLM({ model }).completion('ctx');
    expectTypeOf(result).toEqualTypeOf<RLMChatCompletion>();
    expect(result.answer).toBe('{"a": 1}');
  });

  it('gives no answer when the answer-now turn does not match', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL(not a number)']);
    const result = await testRLM({ model, maxIterations: 1 }).completion('ctx', {
      output: z.number(),
    });
    expect(result).toMatchObject({ status: 'max_iterations', answer: null });
    expect(result.partialAnswer).toBe('FINAL(not a number)');
  });

  it('says why a run without an answer ended: the schema refused its last final answer', async () => {
    const model = scriptedModel([
      repl('print(1)'),
      'FINAL({"customer": "ACME", "total": "12 USD"})',
      'FINAL({"customer": "ACME", "total": "twelve"})',
    ]);
    const result = await testRLM({ model, maxIterations: 2 }).completion('ctx', {
      output: invoice,
    });
    expect(result).toMatchObject({
      status: 'max_iterations',
      answer: null,
      error: { code: 'executor.answer_refused' },
    });
    expect(result.error?.message).toBe(
      'the model\'s last final answer does not match the output schema:\n- at total: Invalid input: expected number, received string; got "twelve"',
    );
  });

  it('keeps error null for a run without an answer that no schema refused', async () => {
    const model = scriptedModel([repl('print(1)'), repl('print(2)'), 'no marker']);
    const result = await testRLM({ model, maxIterations: 2 }).completion('ctx', {
      output: invoice,
    });
    expect(result).toMatchObject({ status: 'max_iterations', answer: null, error: null });
  });

  it('refuses a confident set_answer that does not match once, then takes a matching one', async () => {
    const model = scriptedModel([
      repl('set_answer("twelve", { confidence: 0.9 })'),
      repl('print("still thinking")'),
      repl('set_answer("12", { confidence: 0.9 })'),
    ]);
    const result = await testRLM({
      model,
      dispatcher: true,
      confidenceThreshold: 0.8,
      firstTurnGuard: false,
    }).completion('ctx', { output: z.number() });
    expect(result).toMatchObject({ status: 'completed', answer: 12, iterations: 3 });
    expect(noteBefore(model.requests[1])).toContain('not accepted');
    // The same refused proposal is not reported again.
    expect(noteBefore(model.requests[2])).not.toContain('not accepted');
  });

  it('records the JSON Schema in the trajectory header, and replay checks against it', async () => {
    const sink = memoryTrajectorySink();
    const model = scriptedModel([
      repl('const r = { customer: "A", total: "x" }'),
      'FINAL_VAR(r)',
      repl('r.total = 3'),
      'FINAL_VAR(r)',
    ]);
    const result = await testRLM({ model, trajectory: sink }).completion('ctx', {
      output: invoice,
    });
    expect(result.answer).toEqual({ customer: 'A', total: 3 });
    const header = sink.records.find((record) => record.kind === 'header');
    expect(header?.kind === 'header' && header.config['output']).toMatchObject({
      type: 'object',
      required: ['customer', 'total'],
    });
    const replayed = await replay(sink.records, { context: 'ctx', isolation: 'inline' });
    expect(replayed.result).toMatchObject({
      status: 'completed',
      answer: '{"customer":"A","total":3}',
    });
  });

  it('keeps the schema across a resume from the checkpoint it recorded', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const first = scriptedModel([
      repl('const r = { customer: "A", total: 2 }'),
      () => {
        stop.abort();
        return new Promise<string>(() => undefined);
      },
    ]);
    const stopped = await testRLM({
      model: first,
      runStore: store.runs,
      generateId: () => 'run-typed',
    }).completion('ctx', { output: invoice, signal: stop.signal });
    expect(stopped.status).toBe('cancelled');
    const model = scriptedModel(['FINAL({"customer": "A"})', 'FINAL_VAR(r)']);
    const resumed = await testRLM({ model, runStore: store.runs }).resume('run-typed', {
      context: 'ctx',
    });
    expect(resumed).toMatchObject({ status: 'completed', answer: { customer: 'A', total: 2 } });
    expect(model.requests[0]?.system).toContain('## Answer format');
    expect(noteBefore(model.requests[1])).toContain('at total');
  });

  it('rejects an output that is not a zod schema, naming the field', () => {
    const model = scriptedModel([]);
    expect(() => testRLM({ model, output: { type: 'object' } as never })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        details: expect.objectContaining({ issues: [expect.stringContaining('output')] }),
      }),
    );
  });
});
