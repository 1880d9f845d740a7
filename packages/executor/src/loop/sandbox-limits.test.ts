import { MAX_RUN_EVENT_CHARS, type ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import {
  RUNAWAY_LIMITS as LIMITS,
  RUNAWAY_BLOCKS as RUNAWAY,
  repls,
} from '../testing/runaway-blocks.js';

/** Root requests carry the dispatcher section of the coordinator prompt; children are solvers. */
function isRoot(request: ModelRequest): boolean {
  return request.system?.includes('## Background tasks') === true;
}

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** Everything the model was sent on its last turn. */
function lastPrompt(requests: readonly ModelRequest[]): string {
  return (requests.at(-1)?.messages ?? []).map((message) => message.content).join('\n');
}

describe('the loop and the sandbox limits', () => {
  it('tells the model its REPL was reset, and the next turn runs on a fresh engine', async () => {
    const model = scriptedModel((request) => {
      const turn = turnOf(request);
      if (turn === 0) return repls(['var kept = 1', ...RUNAWAY]);
      if (turn === 1) return repl('print(typeof kept, context.length)');
      return 'FINAL(done)';
    });
    const { events, onEvent } = eventLog();
    const rlm = testRLM({ model, isolation: 'worker', limits: LIMITS, onEvent });
    const result = await rlm.completion('abcdef', { query: 'q' });
    // The caller is told too: in the result and in the run's last event.
    expect(result).toMatchObject({ status: 'completed', sandboxResets: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'run-end', sandboxResets: 1 });
    const secondTurn = model.requests[1]?.messages.map((message) => message.content).join('\n');
    expect(secondTurn).toContain('sandbox.reset');
    expect(secondTurn).toContain('Your REPL was reset');
    expect(lastPrompt(model.requests)).toContain('undefined 6');
  });

  it('defines delegate again after a reset, numbering tasks after those already started', async () => {
    const model = scriptedModel((request) => {
      if (!isRoot(request)) return 'FINAL(sub done)';
      const turn = turnOf(request);
      if (turn === 0) return repls(['print(delegate("first"))', ...RUNAWAY]);
      if (turn === 1) return repl('print(delegate("second"))');
      return 'FINAL(done)';
    });
    const rlm = testRLM({
      model,
      isolation: 'worker',
      maxDepth: 2,
      promptMode: 'coordinator',
      limits: LIMITS,
    });
    const result = await rlm.completion('ctx', { query: 'q' });
    expect(result.status).toBe('completed');
    const roots = model.requests.filter(isRoot);
    expect(roots[2]?.messages.map((message) => message.content).join('\n')).toContain('t2');
  });

  it('refuses a FINAL_VAR in the response text that names a variable too large to be an answer', async () => {
    const model = scriptedModel((request) => {
      const turn = turnOf(request);
      if (turn === 0) return repl("var big = 'b'.repeat(1_500_000)");
      if (turn === 1) return 'FINAL_VAR(big)';
      return 'FINAL(short)';
    });
    const result = await testRLM({ model }).completion('ctx', { query: 'q' });
    expect(result.answer).toBe('short');
    expect(lastPrompt(model.requests)).toContain('FINAL_VAR(big) is not an answer');
  });

  it('emits no event larger than MAX_RUN_EVENT_CHARS', async () => {
    const { events, onEvent } = eventLog();
    const model = scriptedModel([repl("print('x'.repeat(3 * 2 ** 20))"), 'FINAL(done)']);
    await testRLM({ model, onEvent, limits: { maxOutputChars: 4 * 2 ** 20 } }).completion('ctx');
    const blockEnd = events.find((event) => event.type === 'block-end');
    expect(blockEnd).toMatchObject({ stdout: expect.stringMatching(/chars\.\.\.\]$/) });
    for (const event of events) {
      expect(JSON.stringify(event).length).toBeLessThanOrEqual(MAX_RUN_EVENT_CHARS);
    }
  });
});
