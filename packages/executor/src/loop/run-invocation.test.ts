import { RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

describe('the RLM loop', () => {
  it('sends the metadata message, then the first-turn prompt with its safeguard', async () => {
    const model = scriptedModel([repl('print(context.length)'), 'FINAL(done)']);
    await testRLM({ model }).completion('Hello, world!', { query: 'How long?' });
    const first = model.requests[0]!;
    expect(first.system).toContain('REPL');
    expect(first.messages[0]).toEqual({
      role: 'user',
      content: expect.stringContaining('string of 13 characters'),
    });
    expect(lastMessage(first).content).toContain('have not looked at the REPL');
    expect(lastMessage(first).content).toContain('How long?');
  });

  it('shows block output to the model and answers from a text FINAL', async () => {
    const model = scriptedModel([repl('print(context.toUpperCase())'), 'Found it.\nFINAL(HELLO)']);
    const result = await testRLM({ model }).completion('hello', { query: 'Shout it' });
    expect(result).toMatchObject({
      status: 'completed',
      answer: 'HELLO',
      iterations: 2,
      partialAnswer: null,
    });
    const second = model.requests[1]!.messages;
    expect(second.at(-3)).toEqual({
      role: 'assistant',
      content: expect.stringContaining('```repl'),
    });
    expect(second.at(-2)).toEqual({ role: 'user', content: 'REPL output:\nHELLO' });
    expect(lastMessage(model.requests[1]!).content).toContain('earlier work');
  });

  it('prefers a FINAL executed in code over a text marker', async () => {
    const model = scriptedModel([repl('FINAL("from code")', 'FINAL(from text)')]);
    const result = await testRLM({ model }).completion('ctx');
    expect(result.answer).toBe('from code');
  });

  it('resolves FINAL_VAR in the text from the sandbox', async () => {
    const model = scriptedModel([repl('const total = 40 + 2'), 'FINAL_VAR(total)']);
    const result = await testRLM({ model }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: '42' });
  });

  it('continues and lists existing variables when FINAL_VAR names a missing one', async () => {
    const model = scriptedModel([
      repl('const found = "x"'),
      'FINAL_VAR(answer)',
      'FINAL_VAR(found)',
    ]);
    const result = await testRLM({ model }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'x', iterations: 3 });
    const note = model.requests[2]!.messages.at(-2)!.content;
    expect(note).toContain('FINAL_VAR(answer) is not an answer');
    expect(note).toContain('found');
  });

  it('refuses a turn-0 answer given before any code ran, once', async () => {
    const model = scriptedModel(['FINAL(guess)', 'FINAL(guess again)']);
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'guess again', iterations: 2 });
    expect(model.requests[1]!.messages.at(-2)!.content).toContain('not accepted');
    expect(events.filter((event) => event.type === 'final-answer')).toHaveLength(1);
  });

  it('accepts a turn-0 answer when the guard is off', async () => {
    const model = scriptedModel(['FINAL(guess)']);
    const result = await testRLM({ model, firstTurnGuard: false }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'guess', iterations: 1 });
  });

  it('tells the model on its last iteration, then asks for a default answer', async () => {
    const model = scriptedModel([repl('print(1)'), repl('print(2)'), 'FINAL(Best guess: 7)']);
    const result = await testRLM({ model, maxIterations: 2 }).completion('ctx');
    expect(result).toMatchObject({
      status: 'max_iterations',
      answer: 'Best guess: 7',
      partialAnswer: null,
      iterations: 2,
    });
    expect(lastMessage(model.requests[0]!).content).not.toContain('last iteration');
    expect(lastMessage(model.requests[1]!).content).toContain('last iteration');
    expect(lastMessage(model.requests[2]!).content).toContain('used all your iterations');
  });

  it('runs at most maxBlocksPerIteration blocks and says how many were skipped', async () => {
    const three = [repl('print("a")'), repl('print("b")'), repl('print("c")')].join('\n');
    const model = scriptedModel([three, 'FINAL(ok)']);
    await testRLM({ model, limits: { maxBlocksPerIteration: 2 } }).completion('ctx');
    const messages = model.requests[1]!.messages;
    expect(messages.at(-3)!.content).toBe('REPL output (block 1):\na\n\nREPL output (block 2):\nb');
    expect(messages.at(-2)!.content).toContain('1 more were skipped');
  });

  it('cuts each block output at maxOutputChars with a visible marker', async () => {
    const model = scriptedModel([repl('print("x".repeat(500))'), 'FINAL(ok)']);
    await testRLM({ model, limits: { maxOutputChars: 100 } }).completion('ctx');
    const output = model.requests[1]!.messages.at(-2)!.content;
    expect(output).toMatch(/… \+ \[\d+ chars\.\.\.\]$/);
    expect(output.length).toBeLessThan(200);
  });

  it('stops after maxConsecutiveErrors failing iterations with the latest response as partial answer', async () => {
    const model = scriptedModel((_request, index) => repl(`throw new Error("boom ${index}")`));
    const result = await testRLM({ model, budget: { maxConsecutiveErrors: 3 } }).completion('ctx');
    expect(result.status).toBe('budget_exceeded');
    expect(result.iterations).toBe(3);
    expect(result.partialAnswer).toContain('boom 2');
    expect(result.error?.code).toBe('executor.budget_exceeded');
  });

  it('ends with status error and a typed error when the root model fails for good', async () => {
    const failure = new RlmError({
      code: 'model.auth',
      message: 'bad key',
      details: { status: 401 },
    });
    const model = scriptedModel([failure]);
    const result = await testRLM({ model }).completion('ctx');
    expect(result).toMatchObject({ status: 'error', answer: null, error: { code: 'model.auth' } });
  });

  it('puts the end reason in run-end itself: the exceeded budget, the failure, none on success', async () => {
    const endOf = async (model: ReturnType<typeof scriptedModel>, maxConsecutiveErrors = 3) => {
      const { events, onEvent } = eventLog();
      await testRLM({ model, onEvent, budget: { maxConsecutiveErrors } }).completion('ctx');
      return events.find((event) => event.type === 'run-end');
    };
    const stopped = await endOf(
      scriptedModel(() => repl('throw new Error("boom")')),
      1,
    );
    expect(stopped).toMatchObject({
      status: 'budget_exceeded',
      error: { code: 'executor.budget_exceeded' },
    });
    const failure = new RlmError({
      code: 'model.auth',
      message: 'bad key',
      details: { status: 401 },
    });
    expect(await endOf(scriptedModel([failure]))).toMatchObject({
      status: 'error',
      error: { code: 'model.auth', message: 'bad key' },
    });
    const completed = await endOf(scriptedModel([repl('print(1)'), 'FINAL(1)']));
    expect(completed).toMatchObject({ status: 'completed' });
    expect(completed).not.toHaveProperty('error');
  });

  it('gives each depth its own iteration count from iterationsForDepth', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL(Out of turns: 1)']);
    const result = await testRLM({ model, iterationsForDepth: [1] }).completion('ctx');
    expect(result).toMatchObject({
      status: 'max_iterations',
      iterations: 1,
      answer: 'Out of turns: 1',
    });
  });

  it('runs ```js blocks only when the caller opts in', async () => {
    const js = 'Here:\n```js\nconst v = 6 * 7\n```';
    const off = scriptedModel([js, 'FINAL_VAR(v)', 'FINAL(none)']);
    const on = scriptedModel([js, 'FINAL_VAR(v)']);
    expect((await testRLM({ model: off }).completion('ctx')).answer).toBe('none');
    expect((await testRLM({ model: on, codeLanguages: ['js'] }).completion('ctx')).answer).toBe(
      '42',
    );
  });

  it('exposes run metadata as __rlm, refreshed each turn', async () => {
    const show =
      'print([__rlm.depth, __rlm.maxDepth, __rlm.iteration, __rlm.maxIterations, __rlm.runId].join(" "))';
    const model = scriptedModel([repl(show), repl(show), 'FINAL(ok)']);
    await testRLM({ model, maxIterations: 5, generateId: () => 'run-9' }).completion('ctx');
    expect(model.requests[1]!.messages.at(-2)!.content).toBe('REPL output:\n0 1 0 5 run-9');
    expect(model.requests[2]!.messages.at(-2)!.content).toBe('REPL output:\n0 1 1 5 run-9');
  });
});
