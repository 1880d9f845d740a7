import type { RunEvent } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { renderRunHtml } from './render-run-html.js';
import { recordedEvents, treeOf } from './testing/recorded-runs.js';

const ROOT = 'nested-run-root';

function resumeAt(iteration: number, model = 'scripted/model'): RunEvent {
  return {
    v: 1,
    runId: ROOT,
    parentRunId: null,
    rootRunId: ROOT,
    depth: 0,
    at: 1_700_000_009_000,
    type: 'run-resume',
    fromIteration: iteration,
    model,
  };
}

describe('TraceTree', () => {
  it('rebuilds turns, blocks, sub-calls and the nested child run from events', () => {
    const tree = treeOf(recordedEvents('nested-run'));
    const root = tree.root;
    expect(root).toMatchObject({ runId: ROOT, depth: 0, status: 'completed' });
    expect(root?.iterations).toHaveLength(2);
    const [first, second] = root?.iterations ?? [];
    expect(first?.blocks[0]).toMatchObject({ state: 'ok', stdout: 'sub reply 5\n' });
    expect(first?.subcalls.map((call) => [call.kind, call.state])).toEqual([
      ['llm', 'ok'],
      ['rlm', 'ok'],
    ]);
    const child = tree.runs.get(first?.subcalls[1]?.childRunId ?? '');
    expect(child).toMatchObject({ depth: 1, parentRunId: ROOT, answer: { text: '5' } });
    expect(second?.blocks[0]?.state).toBe('error');
    expect(second?.blocks[0]?.error).toMatch(/^ReferenceError: /);
    expect(root?.answer).toEqual({ text: 'done', source: 'text' });
  });

  it('reads a resumed run as one run: earlier turns kept, the cut-off turn followed by its rerun', () => {
    const events = recordedEvents('nested-run');
    const secondTurn = events.findIndex(
      (event) => event.runId === ROOT && event.type === 'iteration-start' && event.iteration === 1,
    );
    // The stream a stop and a resume produce: turn 2 starts, the process dies, the executor
    // resumes the run from its checkpoint after turn 1 and runs turn 2 once more.
    const resumed = [...events.slice(0, secondTurn + 1), resumeAt(1), ...events.slice(secondTurn)];
    const root = treeOf(resumed).root;
    expect(root?.iterations.map((turn) => turn.iteration)).toEqual([0, 1, 1]);
    expect(root?.iterations[0]?.subcalls).toHaveLength(2);
    expect(root?.iterations[1]?.blocks).toEqual([]);
    expect(root?.iterations[2]?.blocks[0]?.state).toBe('error');
    expect(root?.iterations[2]?.response).toContain('FINAL(done)');
    expect(root?.notes).toEqual([
      'resumed from its checkpoint after turn 1',
      'turn 2 was cut off by a stop and ran again',
    ]);
    expect(root).toMatchObject({ status: 'completed', answer: { text: 'done' } });
  });

  it('says when a resumed run starts over or changes model, and forgets the lost calls', () => {
    const events = recordedEvents('nested-run');
    const firstCall = events.findIndex((event) => event.type === 'model-call-start');
    const tree = treeOf([...events.slice(0, firstCall + 1), resumeAt(0, 'scripted/other')]);
    expect(tree.root?.notes).toEqual([
      'stopped before its first checkpoint; started again from turn 1',
      'model after the resume: scripted/other',
    ]);
    expect(tree.root?.model).toBe('scripted/other');
    expect(tree.isWaiting(ROOT)).toBe(false);
  });

  it('takes a second run-start as the same run, never as a resume', () => {
    const events = recordedEvents('nested-run');
    const start = events[0] as RunEvent;
    const tree = treeOf([...events.slice(0, 5), start]);
    expect(tree.root?.iterations).toHaveLength(1);
    expect(tree.root?.notes).toEqual([]);
  });

  it('charges each model call to the turn it happened in', () => {
    const tree = treeOf(recordedEvents('nested-run'));
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

  it('shows a run in progress: a running block and a pending model call', () => {
    const events = recordedEvents('nested-run');
    const cut = events.findIndex((event) => event.type === 'block-start');
    const tree = treeOf(events.slice(0, cut + 1));
    expect(tree.root?.status).toBeUndefined();
    expect(tree.root?.iterations[0]?.blocks[0]?.state).toBe('running');
    const call = events.findIndex((event) => event.type === 'model-call-start');
    expect(treeOf(events.slice(0, call + 1)).isWaiting(ROOT)).toBe(true);
  });

  it('keeps where each block was written in its response, and the view says it', () => {
    const events = recordedEvents('nested-run').map((event) =>
      event.type === 'block-start' && event.depth === 0 && event.iteration === 0
        ? { ...event, startLine: 3, endLine: 7 }
        : event,
    );
    const tree = treeOf(events);
    const [first, second] = tree.root?.iterations ?? [];
    expect(first?.blocks[0]?.lines).toEqual({ start: 3, end: 7 });
    // Trajectories written before lines were recorded read as before.
    expect(second?.blocks[0]?.lines).toBeUndefined();
    expect(renderRunHtml(tree)).toContain('lines 3–7 of the response');
  });
});
