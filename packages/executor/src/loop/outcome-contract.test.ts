import { RlmError } from '@rlm/protocol';
import { scriptedModel, sleep } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

describe('the outcome contract: an answer only when the model gave one', () => {
  it('takes no answer from a raw default-answer reply, keeping it apart as partialAnswer', async () => {
    const raw = `Here is my plan:\n${repl('const answer = 42')}\n\nFINAL_VAR(answer)`;
    const model = scriptedModel([repl('print(1)'), raw]);
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, maxIterations: 1, onEvent }).completion('ctx');
    expect(result).toMatchObject({ status: 'max_iterations', answer: null, partialAnswer: raw });
    // The default-answer reply's code never runs, so `answer` was never created.
    expect(events.filter((event) => event.type === 'final-answer')).toEqual([]);
    expect(events.filter((event) => event.type === 'block-start')).toHaveLength(1);
  });

  it('answers with FINAL from the default-answer turn', async () => {
    const model = scriptedModel([repl('const found = "blue"'), 'I think so.\nFINAL(blue)']);
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, maxIterations: 1, onEvent }).completion('ctx');
    expect(result).toMatchObject({ status: 'max_iterations', answer: 'blue', partialAnswer: null });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'final-answer', answer: 'blue', source: 'default_answer' }),
    );
    expect(lastMessage(model.requests[1]!).content).toContain('FINAL(');
  });

  it('resolves FINAL_VAR of the default-answer turn from variables earlier turns made', async () => {
    const model = scriptedModel([repl('const found = "blue"'), 'FINAL_VAR(found)']);
    const result = await testRLM({ model, maxIterations: 1 }).completion('ctx');
    expect(result).toMatchObject({ status: 'max_iterations', answer: 'blue' });
  });

  it('gives no answer for FINAL_VAR of a variable holding undefined, tells the model why, and goes on', async () => {
    const model = scriptedModel([
      repl('let answer;\nprint("not yet")'),
      'FINAL_VAR(answer)',
      repl('answer = "found it"'),
      'FINAL_VAR(answer)',
    ]);
    const result = await testRLM({ model }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'found it', iterations: 4 });
    const note = model.requests[2]!.messages.at(-2)!.content;
    expect(note).toContain('FINAL_VAR(answer) is not an answer');
    expect(note).toContain('holds undefined');
  });

  it('gives no answer for FINAL_VAR in code of a variable holding undefined', async () => {
    const model = scriptedModel([
      repl('let answer;\nFINAL_VAR("answer")'),
      repl('answer = 7;\nFINAL_VAR("answer")'),
    ]);
    const result = await testRLM({ model }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: '7', iterations: 2 });
  });

  it('keeps the latest response as partialAnswer, never as answer, when a limit stops the run', async () => {
    const model = scriptedModel((_request, index) => repl(`throw new Error("boom ${index}")`));
    const result = await testRLM({ model, budget: { maxConsecutiveErrors: 2 } }).completion('ctx');
    expect(result).toMatchObject({
      status: 'budget_exceeded',
      answer: null,
      error: { code: 'executor.budget_exceeded' },
    });
    expect(result.partialAnswer).toContain('boom 1');
  });

  it('sets answer, partialAnswer and error per status as the protocol README’s table says', async () => {
    const slowSecond = () =>
      scriptedModel((request, index) =>
        index === 0
          ? repl('print(1)')
          : sleep(60_000, { signal: request.signal }).then(() => 'late'),
      );
    const controller = new AbortController();
    const cancelled = testRLM({
      model: scriptedModel([
        repl('print(1)'),
        (request) => sleep(60_000, { signal: request.signal }).then(() => 'late'),
      ]),
      onEvent: (event) => {
        if (event.type === 'model-call-start' && event.callId.endsWith(':2')) controller.abort();
      },
    }).completion('ctx', { signal: controller.signal });
    expect(await cancelled).toMatchObject({
      status: 'cancelled',
      answer: null,
      partialAnswer: expect.stringContaining('print(1)'),
      error: { code: 'executor.cancelled' },
    });
    const timeout = await testRLM({
      model: slowSecond(),
      budget: { maxWallTimeMs: 2_000 },
    }).completion('ctx');
    expect(timeout).toMatchObject({
      status: 'timeout',
      answer: null,
      partialAnswer: expect.stringContaining('print(1)'),
      error: { code: 'executor.budget_exceeded' },
    });
    const failure = new RlmError({
      code: 'model.overloaded',
      message: 'busy',
      details: { status: 529 },
    });
    const failed = await testRLM({ model: scriptedModel([repl('print(1)'), failure]) }).completion(
      'ctx',
    );
    expect(failed).toMatchObject({
      status: 'error',
      answer: null,
      partialAnswer: expect.stringContaining('print(1)'),
      error: { code: 'model.overloaded' },
    });
  });
});
