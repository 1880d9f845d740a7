import type { RunEvent } from '@rlm/protocol';
import { TraceTree } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { createPlainProgress } from './plain-progress.js';

const base = { v: 1, runId: 'root', parentRunId: null, rootRunId: 'root', depth: 0 } as const;

/** A run whose second turn makes `calls` llm_query sub-calls, `msPerCall` apart. */
function runEvents({ calls, msPerCall }: { calls: number; msPerCall: number }): RunEvent[] {
  const events: RunEvent[] = [];
  let at = 1_000_000;
  const push = (event: Record<string, unknown>) =>
    events.push({ ...base, at, ...event } as RunEvent);
  push({
    type: 'run-start',
    query: 'q',
    model: 'm',
    context: [],
    maxIterations: 30,
    maxDepth: 1,
    promptVersion: 'v',
  });
  for (const iteration of [0, 1]) {
    push({ type: 'iteration-start', iteration });
    push({ type: 'block-start', iteration, index: 0, code: 'const x = 1;\nmore();' });
    for (let call = 0; iteration === 1 && call < calls; call += 1) {
      const callId = `c${call}`;
      push({ type: 'subcall-start', callId, kind: 'llm', model: 'sub', promptPreview: 'p' });
      at += msPerCall;
      const ok = call % 1000 !== 7;
      push({ type: 'subcall-end', callId, kind: 'llm', ok, durationMs: 1, responsePreview: 'r' });
    }
    push({
      type: 'block-end',
      iteration,
      index: 0,
      stdout: 'out',
      stderr: '',
      executionTime: 5,
      finalAnswer: null,
      error: null,
      unawaitedCalls: {},
    });
    at += 100;
    push({ type: 'iteration-end', iteration, response: 'r', finalAnswer: null, durationMs: 100 });
  }
  push({ type: 'final-answer', answer: '42', source: 'text' });
  push({
    type: 'run-end',
    status: 'completed',
    answer: '42',
    partialAnswer: null,
    usage: { models: {} },
    iterations: 2,
    durationMs: at - 1_000_000,
  });
  return events;
}

function replay(events: readonly RunEvent[]): string[] {
  const tree = new TraceTree();
  const lines: string[] = [];
  const progress = createPlainProgress({ tree, write: (line) => lines.push(line) });
  for (const event of events) {
    tree.apply(event);
    progress.onEvent(event);
  }
  return lines;
}

describe('createPlainProgress', () => {
  it('writes about a line per turn and per second, however many sub-calls a turn makes', () => {
    // 3,000 sub-calls over 6 seconds: a line at start, per turn, per second, and at the end.
    const lines = replay(runEvents({ calls: 3_000, msPerCall: 2 }));
    expect(lines.length).toBeGreaterThanOrEqual(2 + 4);
    expect(lines.length).toBeLessThanOrEqual(2 + 7 + 3);
    expect(lines[0]).toBe('run root started: model m, up to 30 turns');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^turn 2 … \S+: [\d,]+ llm_query so far → sub, [\d,]+ failed, block 1 running · /,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^turn 2 done in 100ms: 1 block \(const x = 1; \(\+1 lines\)\), 3,000 llm_query → sub, 3 failed · /,
      ),
    );
    expect(lines.slice(-2)).toEqual([
      'final answer (text)',
      expect.stringMatching(/^completed in \S+: 2 turns · /),
    ]);
  });

  it('writes nothing more for sub-calls that come faster than a line a second', () => {
    const lines = replay(runEvents({ calls: 3_000, msPerCall: 0 }));
    expect(lines).toEqual([
      'run root started: model m, up to 30 turns',
      expect.stringMatching(/^turn 1 done/),
      expect.stringMatching(/^turn 2 done in 100ms: .*3,000 llm_query/),
      'final answer (text)',
      expect.stringMatching(/^completed/),
    ]);
  });

  it('shows life while the run waits, at most once per idle interval', () => {
    const tree = new TraceTree();
    const lines: string[] = [];
    const progress = createPlainProgress({ tree, write: (line) => lines.push(line) });
    const [start, turn] = runEvents({ calls: 0, msPerCall: 0 });
    for (const event of [start, turn]) {
      if (event === undefined) throw new Error('no event');
      tree.apply(event);
      progress.onEvent(event);
    }
    const at = start?.at ?? 0;
    progress.tick(at + 5_000);
    expect(lines).toHaveLength(1);
    progress.tick(at + 10_000);
    progress.tick(at + 15_000);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^turn 1 … 10\.0s: waiting for the model · /),
    ]);
  });

  it('says a resumed Python run is loading its interpreter, and when it is ready', () => {
    const tree = new TraceTree();
    const lines: string[] = [];
    const progress = createPlainProgress({
      tree,
      write: (line) => lines.push(line),
      repl: 'python',
    });
    const at = 1_000_000;
    const events = [
      { ...base, at, type: 'run-resume', fromIteration: 2, model: 'm' },
      { ...base, at: at + 12_000, type: 'iteration-start', iteration: 2 },
    ] as RunEvent[];
    tree.apply(events[0] as RunEvent);
    progress.onEvent(events[0] as RunEvent);
    progress.tick(at + 10_000);
    tree.apply(events[1] as RunEvent);
    progress.onEvent(events[1] as RunEvent);
    expect(lines).toEqual([
      'run root resumed at turn 3: model m',
      'loading the Python interpreter (Pyodide)… (the first turn starts once it is ready)',
      'loading the Python interpreter (Pyodide)… 10.0s',
      'Python interpreter ready in 12.0s',
    ]);
  });
});
