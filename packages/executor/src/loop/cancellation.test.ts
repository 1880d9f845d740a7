import type { RunEvent } from '@rlm/protocol';
import { scriptedModel, sleep } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../index.js';
import { repl, testRLM } from '../testing/rlm-test-kit.js';

/** Aborts `controller` once `when` matches an event, and remembers when it did. */
function abortOn(controller: AbortController, when: (event: RunEvent) => boolean) {
  const state = { abortedAt: 0 };
  const onEvent = (event: RunEvent) => {
    if (state.abortedAt === 0 && when(event)) {
      state.abortedAt = performance.now();
      controller.abort(new Error('user pressed stop'));
    }
  };
  return { state, onEvent };
}

/**
 * Settling after an abort takes milliseconds (the sandbox's abort flag, the model calls' signals);
 * at worst the worker sandbox's watchdog settles a stuck block after its 750 ms grace. The bound
 * is that plus generous slack for a busy shared machine: far below any other limit in play.
 */
const SETTLES_WITHIN_MS = 5_000;

const hang = (request: { signal?: AbortSignal }) =>
  sleep(60_000, { signal: request.signal }).then(() => 'late');

describe('cancellation', () => {
  it('stops a block spinning in while(true) soon after the abort', async () => {
    const controller = new AbortController();
    const { state, onEvent } = abortOn(controller, (event) => event.type === 'block-start');
    const model = scriptedModel([repl('while (true) {}')]);
    const rlm = createRLM({ model, isolation: 'worker', onEvent });
    const result = await rlm.completion('ctx', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(performance.now() - state.abortedAt).toBeLessThan(SETTLES_WITHIN_MS);
  });

  it('aborts every in-flight call of a batched fan-out', async () => {
    const controller = new AbortController();
    let started = 0;
    const { state, onEvent } = abortOn(
      controller,
      (event) => event.type === 'subcall-start' && ++started === 8,
    );
    const model = scriptedModel([
      repl('await llm_query_batched(Array.from({ length: 20 }, (_, i) => "p" + i))'),
    ]);
    const subModel = scriptedModel(hang, { id: 'scripted/sub' });
    const rlm = testRLM({ model, subModel, onEvent });
    const result = await rlm.completion('ctx', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(subModel.calls).toBe(7);
    expect(subModel.requests.every((request) => request.signal?.aborted)).toBe(true);
    expect(performance.now() - state.abortedAt).toBeLessThan(SETTLES_WITHIN_MS);
  });

  it('stops a child spinning in while(true), and its parent', async () => {
    const controller = new AbortController();
    const { state, onEvent } = abortOn(
      controller,
      (event) => event.type === 'block-start' && event.depth === 1,
    );
    const model = scriptedModel((request) =>
      request.messages[0]!.content.includes('string of 4 characters')
        ? repl('while (true) {}')
        : repl('await rlm_query("spin", { context: "abcd" })'),
    );
    const events: RunEvent[] = [];
    const rlm = createRLM({
      model,
      maxDepth: 2,
      isolation: 'worker',
      onEvent: (event) => {
        events.push(event);
        onEvent(event);
      },
    });
    const result = await rlm.completion('ctx', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(performance.now() - state.abortedAt).toBeLessThan(SETTLES_WITHIN_MS);
    const childEnd = events.find((event) => event.type === 'run-end' && event.depth === 1);
    expect(childEnd).toMatchObject({ status: 'cancelled' });
  });

  it('settles soon after an abort during a builtin the engine cannot interrupt, far inside its CPU limit', async () => {
    const controller = new AbortController();
    const state = { abortedAt: 0 };
    // JSON.stringify of a 60,000-deep object runs for many seconds in one native call; only the
    // worker watchdog's abort grace can end it this soon (the CPU limit is the 30 s default).
    const runaway = 'JSON.stringify(deep).length';
    const onEvent = (event: RunEvent) => {
      if (event.type === 'block-start' && event.code.includes(runaway)) {
        setTimeout(() => {
          state.abortedAt = performance.now();
          controller.abort(new Error('user pressed stop'));
        }, 300);
      }
    };
    const model = scriptedModel([
      repl(`var deep = {};\nfor (let i = 0; i < 60_000; i++) deep = { deep };\n${runaway}`),
    ]);
    const rlm = createRLM({ model, isolation: 'worker', onEvent });
    const result = await rlm.completion('ctx', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(state.abortedAt).toBeGreaterThan(0);
    expect(performance.now() - state.abortedAt).toBeLessThan(SETTLES_WITHIN_MS);
  });

  it('cancels the run when a stream consumer breaks out', async () => {
    const model = scriptedModel([repl('while (true) {}')]);
    const rlm = createRLM({ model, isolation: 'worker' });
    const seen: string[] = [];
    for await (const event of rlm.stream('ctx')) {
      seen.push(event.type);
      if (event.type === 'block-start') break;
    }
    expect(seen).toEqual([
      'run-start',
      'iteration-start',
      'model-call-start',
      'model-call-end',
      'block-start',
    ]);
  });
});
