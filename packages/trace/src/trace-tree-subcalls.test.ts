import type { RunEvent } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { TraceTree } from './trace-tree.js';

const RUN = 'run-1';
const base = { v: 1, runId: RUN, parentRunId: null, rootRunId: RUN, depth: 0, at: 1 } as const;

const runStart: RunEvent = {
  ...base,
  type: 'run-start',
  query: 'q',
  model: 'scripted/model',
  context: [],
  maxIterations: 5,
  maxDepth: 1,
  promptVersion: 'v',
};

function turnStart(iteration: number): RunEvent {
  return { ...base, type: 'iteration-start', iteration };
}

function subcallStart(callId: string, promptPreview = callId): RunEvent {
  return { ...base, type: 'subcall-start', callId, kind: 'llm', model: 'm', promptPreview };
}

function subcallEnd(callId: string, responsePreview: string): RunEvent {
  const end = { type: 'subcall-end', callId, kind: 'llm', ok: true, durationMs: 2 } as const;
  return { ...base, ...end, responsePreview };
}

function treeOf(events: readonly RunEvent[]): TraceTree {
  const tree = new TraceTree();
  for (const event of events) tree.apply(event);
  return tree;
}

describe('TraceTree sub-call ends', () => {
  it('each end finds its own start among thousands, in any order', () => {
    const ids = Array.from({ length: 5_000 }, (_, index) => `call-${index}`);
    const tree = treeOf([
      runStart,
      turnStart(0),
      ...ids.map((id) => subcallStart(id)),
      ...[...ids].reverse().map((id) => subcallEnd(id, `reply to ${id}`)),
    ]);
    const calls = tree.root?.iterations[0]?.subcalls ?? [];
    expect(calls).toHaveLength(ids.length);
    expect(calls.every((call) => call.state === 'ok')).toBe(true);
    expect(calls.every((call) => call.responsePreview === `reply to ${call.callId}`)).toBe(true);
  });

  it('ends the sub-call of the latest turn when a turn that ran again repeats a call id', () => {
    const tree = treeOf([
      runStart,
      turnStart(0),
      subcallStart('call-1', 'cut off'),
      turnStart(0),
      subcallStart('call-1', 'ran again'),
      subcallEnd('call-1', 'done'),
    ]);
    const [cutOff, rerun] = tree.root?.iterations ?? [];
    expect(cutOff?.subcalls[0]).toMatchObject({ promptPreview: 'cut off', state: 'running' });
    expect(rerun?.subcalls[0]).toMatchObject({ promptPreview: 'ran again', state: 'ok' });
  });

  it('ends the first of two sub-calls with one id in one turn, and ignores an unknown id', () => {
    const tree = treeOf([
      runStart,
      turnStart(0),
      subcallStart('call-1', 'first'),
      subcallStart('call-1', 'second'),
      subcallEnd('call-1', 'done'),
      subcallEnd('call-404', 'lost'),
    ]);
    expect(tree.root?.iterations[0]?.subcalls.map((call) => call.state)).toEqual(['ok', 'running']);
  });

  it('keeps the sub-calls of two runs apart when they share a call id', () => {
    const tree = treeOf([runStart, turnStart(0), subcallStart('call-1', 'before')]);
    const other = { ...runStart, runId: 'run-2', rootRunId: RUN, parentRunId: RUN, depth: 1 };
    tree.apply(other);
    tree.apply({ ...base, runId: 'run-2', type: 'iteration-start', iteration: 0 });
    tree.apply({ ...subcallStart('call-1', 'child'), runId: 'run-2' });
    tree.apply({ ...subcallEnd('call-1', 'child done'), runId: 'run-2' });
    expect(tree.root?.iterations[0]?.subcalls[0]?.state).toBe('running');
    expect(tree.runs.get('run-2')?.iterations[0]?.subcalls[0]?.state).toBe('ok');
  });
});
