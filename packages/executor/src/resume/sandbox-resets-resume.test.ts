import { createStore } from '@rlm/memory';
import type { ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { repl, testRLM } from '../testing/rlm-test-kit.js';
import { RUNAWAY_BLOCKS, RUNAWAY_LIMITS, repls } from '../testing/runaway-blocks.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

describe('sandbox resets across resume', () => {
  it('counts the resets before the interruption in the resumed run’s result and run-end', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const firstModel = scriptedModel((request) => {
      if (turnOf(request) === 0) return repls(RUNAWAY_BLOCKS);
      if (turnOf(request) === 1) return repl('print("fresh engine")');
      // The "crash": the run is stopped while its third turn waits for the model.
      stop.abort();
      return new Promise<string>(() => undefined);
    });
    const first = await testRLM({
      model: firstModel,
      isolation: 'worker',
      limits: RUNAWAY_LIMITS,
      runStore: store.runs,
      generateId: () => 'run-1',
    }).completion('the context', { signal: stop.signal });
    expect(first).toMatchObject({ status: 'cancelled', sandboxResets: 1 });

    const ends: unknown[] = [];
    const resumed = await testRLM({
      model: scriptedModel(() => 'FINAL(done)'),
      isolation: 'worker',
      limits: RUNAWAY_LIMITS,
      runStore: store.runs,
      onEvent: (event) => {
        if (event.type === 'run-end') ends.push(event);
      },
    }).resume('run-1', { context: 'the context' });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'done', sandboxResets: 1 });
    expect(ends).toMatchObject([{ sandboxResets: 1 }]);
    await store.close();
  });
});
