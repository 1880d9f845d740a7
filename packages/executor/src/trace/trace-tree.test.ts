import type { RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, repl, testRLM } from '../testing/rlm-test-kit.js';
import { TraceTree } from './trace-tree.js';

/** A run with a failing block, an llm_query and an rlm_query child, recorded as events. */
async function recordNestedRun(): Promise<{ events: RunEvent[]; runId: string }> {
  const model = scriptedModel((request) => {
    if (request.system === undefined) return 'sub reply';
    const isChild = request.messages[0]?.content.includes('string of 5 characters') ?? false;
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (isChild) return turn === 0 ? repl('const n = context.length') : 'FINAL_VAR(n)';
    return turn === 0
      ? repl(
          'const a = await llm_query("ask")\nconst r = await rlm_query("child", { context: "a b c" })\nprint(a, r)',
        )
      : `${repl('undefinedFn()')}\nFINAL(done)`;
  });
  const { events, onEvent } = eventLog();
  const result = await testRLM({ model, maxDepth: 2, onEvent }).completion('the root context');
  return { events, runId: result.runId };
}

describe('TraceTree', () => {
  it('rebuilds turns, blocks, sub-calls and the nested child run from events', async () => {
    const { events, runId } = await recordNestedRun();
    const tree = new TraceTree();
    for (const event of events) tree.apply(event);
    const root = tree.root;
    expect(root).toMatchObject({ runId, depth: 0, status: 'completed' });
    expect(root?.iterations).toHaveLength(2);
    const [first, second] = root?.iterations ?? [];
    expect(first?.blocks[0]).toMatchObject({ state: 'ok', stdout: 'sub reply 5\n' });
    expect(first?.subcalls.map((call) => [call.kind, call.state])).toEqual([
      ['llm', 'ok'],
      ['rlm', 'ok'],
    ]);
    const child = tree.runs.get(first?.subcalls[1]?.childRunId ?? '');
    expect(child).toMatchObject({ depth: 1, parentRunId: runId, answer: { text: '5' } });
    expect(second?.blocks[0]?.state).toBe('error');
    expect(second?.blocks[0]?.error).toMatch(/^ReferenceError: /);
    expect(root?.answer).toEqual({ text: 'done', source: 'text' });
  });

  it('reads a resumed run as one run: earlier turns kept, the cut-off turn followed by its rerun', async () => {
    const { events, runId } = await recordNestedRun();
    const isRoot = (event: RunEvent) => event.runId === runId;
    const secondTurn = events.findIndex(
      (event) => isRoot(event) && event.type === 'iteration-start' && event.iteration === 1,
    );
    const start = events.find((event) => isRoot(event) && event.type === 'run-start');
    // The stream a stop and a resume produce: turn 2 starts, the process dies, the executor
    // starts the run again under its id and runs turn 2 once more.
    const resumed = [...events.slice(0, secondTurn + 1), start!, ...events.slice(secondTurn)];
    const tree = new TraceTree();
    for (const event of resumed) tree.apply(event);
    const root = tree.root;
    expect(root?.iterations.map((turn) => turn.iteration)).toEqual([0, 1, 1]);
    expect(root?.iterations[0]?.subcalls).toHaveLength(2);
    expect(root?.iterations[1]?.blocks).toEqual([]);
    expect(root?.iterations[2]?.blocks[0]?.state).toBe('error');
    expect(root?.iterations[2]?.response).toContain('FINAL(done)');
    expect(root?.notes).toEqual([
      'resumed from its last checkpoint',
      'turn 2 was cut off by a stop and ran again',
    ]);
    expect(root).toMatchObject({ status: 'completed', answer: { text: 'done' } });
  });

  it('charges each model call to the turn it happened in', async () => {
    const { events } = await recordNestedRun();
    const tree = new TraceTree();
    for (const event of events) tree.apply(event);
    const [first, second] = tree.root?.iterations ?? [];
    // turn 1: the root's own call and its llm_query; the child's calls belong to the child
    expect(first?.usage.modelCalls).toBe(2);
    expect(second?.usage.modelCalls).toBe(1);
    expect(first?.usage.outputTokens).toBeGreaterThan(0);
    const perTurn = [...tree.runs.values()]
      .flatMap((run) => run.iterations)
      .reduce((sum, turn) => sum + turn.usage.modelCalls, 0);
    expect(perTurn).toBe(tree.modelCalls);
  });

  it('shows a run in progress: a running block and a pending model call', async () => {
    const { events } = await recordNestedRun();
    const cut = events.findIndex((event) => event.type === 'block-start');
    const tree = new TraceTree();
    for (const event of events.slice(0, cut + 1)) tree.apply(event);
    expect(tree.root?.status).toBeUndefined();
    expect(tree.root?.iterations[0]?.blocks[0]?.state).toBe('running');
    const waiting = new TraceTree();
    const call = events.findIndex((event) => event.type === 'model-call-start');
    for (const event of events.slice(0, call + 1)) waiting.apply(event);
    expect(waiting.isWaiting(tree.rootRunId ?? '')).toBe(true);
  });
});
