import { createStore } from '@rlm/memory';
import type { ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

describe('refused calls across resume', () => {
  it('reports the calls refused before the interruption in the resumed run’s result', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const firstModel = scriptedModel(
      async (request) => {
        if (request.system?.includes('CHILD-A') === true) {
          return repl(
            'for (let i = 0; i < 10; i++) { try { await llm_query("part " + i) } catch (e) {} }',
          );
        }
        if (request.system?.includes('CHILD-B') === true) return repl('FINAL("b")');
        if (turnOf(request) === 0) {
          return repl(
            'const rs = await rlm_query_batched([{ prompt: "a", systemPrompt: "CHILD-A" }, { prompt: "b", systemPrompt: "CHILD-B" }])',
          );
        }
        // The "crash": the run is stopped while its second turn waits for the model.
        stop.abort();
        return new Promise<string>(() => undefined);
      },
      { maxOutputTokens: 100 },
    );
    const sub = () => scriptedModel(() => 'piece', { id: 'scripted/sub' });
    // The two children take 2 sub-calls of 20 and share the rest: 9 each. Child A asks for 10.
    const first = await testRLM({
      model: firstModel,
      subModel: sub(),
      maxDepth: 2,
      runStore: store.runs,
      budget: { maxSubcalls: 20 },
      generateId: () => 'run-1',
    }).completion('the context', { signal: stop.signal });
    expect(first).toMatchObject({ status: 'cancelled', refusedCalls: 1 });

    const result = await testRLM({
      model: scriptedModel(() => 'FINAL(done)'),
      subModel: sub(),
      maxDepth: 2,
      runStore: store.runs,
      budget: { maxSubcalls: 20 },
    }).resume('run-1', { context: 'the context' });
    expect(result).toMatchObject({ status: 'completed', answer: 'done', refusedCalls: 1 });
    await store.close();
  });
});
