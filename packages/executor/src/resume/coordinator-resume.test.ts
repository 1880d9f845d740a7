import { createStore } from '@rlm/memory';
import type { LanguageModel, ModelRequest, RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRunner } from '../runner/create-runner.js';
import { repl } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** Root requests carry the dispatcher section of the coordinator prompt; tasks are solvers. */
function isRoot(request: ModelRequest): boolean {
  return request.system?.includes('## Background tasks') === true;
}

/**
 * A coordinator that delegates two tasks and reads them (turn 0), delegates a third (turn 1),
 * and answers with all three (turn 2). Each task answers with its own context in capitals; every
 * task request is counted by its context.
 */
function coordinatorModel(perTask: Map<string, number>): LanguageModel & { calls: number } {
  return scriptedModel((request) => {
    if (!isRoot(request)) {
      const key = /task (\w+)/.exec(JSON.stringify(request.messages))?.[1] ?? '?';
      perTask.set(key, (perTask.get(key) ?? 0) + 1);
      return repl('FINAL(context.toUpperCase())');
    }
    switch (turnOf(request)) {
      case 0:
        return repl(
          [
            "const first = delegate_batch([{ task: 'task one', context: 'one' }, { task: 'task two', context: 'two' }])",
            'const done = await await_results(first)',
            "const early = done.results.map((r) => r.summary).join('+')",
          ].join('\n'),
        );
      case 1:
        return repl(
          [
            "const third = delegate('task three', { context: 'three' })",
            'const late = (await await_results([third])).results[0].summary',
          ].join('\n'),
        );
      default:
        return repl("FINAL(early + '+' + late)");
    }
  });
}

describe('a coordinator run stopped by its budget', () => {
  it('resumes through the runner without re-running its finished tasks, with one run-end', async () => {
    const store = await createStore({ kind: 'memory' });
    const perTask = new Map<string, number>();
    const events: RunEvent[] = [];
    const settings = {
      model: 'm',
      mode: 'coordinator' as const,
      limits: { maxDepth: 2, maxSubcalls: 2 },
    };
    const first = coordinatorModel(perTask);
    const stopped = await createRunner({
      resolveModel: () => first,
      runStore: store.runs,
      isolation: 'inline',
    }).run(settings, {
      runId: 'c1',
      context: 'ctx',
      query: 'q',
      onEvent: (event) => void events.push(event),
    });
    // Two tasks finished in turn 0; the third one in turn 1 is past the sub-call budget.
    expect(stopped.status).toBe('budget_exceeded');
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1 });
    expect((await store.runs.latestCheckpoint('c1'))?.turn).toBe(0);

    const second = coordinatorModel(perTask);
    const resumedEvents: RunEvent[] = [];
    const runner = createRunner({
      resolveModel: () => second,
      runStore: store.runs,
      isolation: 'inline',
    });
    const resumed = await runner.resume(
      'c1',
      { ...settings, limits: { maxDepth: 2, maxSubcalls: 10 } },
      { context: 'ctx', onEvent: (event) => void resumedEvents.push(event) },
    );
    expect(resumed).toMatchObject({ status: 'completed', answer: 'ONE+TWO+THREE' });
    // The finished tasks were not run again; only the third ran, once.
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1, three: 1 });
    const rootEnds = resumedEvents.filter((event) => event.type === 'run-end' && event.depth === 0);
    expect(rootEnds).toHaveLength(1);
    expect(resumedEvents[0]).toMatchObject({ type: 'run-resume', fromIteration: 1 });
    expect(resumedEvents.filter((event) => event.type === 'task-start')).toEqual([
      expect.objectContaining({ taskId: 't3', task: 'task three' }),
    ]);
    await store.close();
  });

  it('after a cancel, keeps a task that finished after the last turn and starts a running one again', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const perTask = new Map<string, number>();
    const count = (request: ModelRequest) => {
      const key = /task (\w+)/.exec(JSON.stringify(request.messages))?.[1] ?? '?';
      perTask.set(key, (perTask.get(key) ?? 0) + 1);
      return key;
    };
    const oneSaved = async () => {
      for (;;) {
        const saved = (await store.runs.latestCheckpoint('c2'))?.data as
          | { dispatcher?: { tasks: { id: string; result: unknown }[] } }
          | undefined;
        if (saved?.dispatcher?.tasks.find((task) => task.id === 't1')?.result) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const first = scriptedModel(async (request) => {
      if (!isRoot(request)) {
        // Task two never answers in the first run: it is running when the run is cancelled.
        if (count(request) === 'two') return new Promise<string>(() => undefined);
        return repl('FINAL(context.toUpperCase())');
      }
      if (turnOf(request) === 0) {
        return repl(
          "const ids = delegate_batch([{ task: 'task one', context: 'one' }, { task: 'task two', context: 'two' }])",
        );
      }
      // Turn 1: once task one's result is saved, the run is cancelled.
      await oneSaved();
      stop.abort();
      return new Promise<string>(() => undefined);
    });
    const settings = { model: 'm', mode: 'coordinator' as const, limits: { maxDepth: 2 } };
    const stopped = await createRunner({
      resolveModel: () => first,
      runStore: store.runs,
      isolation: 'inline',
    }).run(settings, { runId: 'c2', context: 'ctx', query: 'q', signal: stop.signal });
    expect(stopped.status).toBe('cancelled');

    const second = scriptedModel((request) => {
      if (!isRoot(request)) {
        count(request);
        return repl('FINAL(context.toUpperCase())');
      }
      return repl(
        "const r = await await_results(ids)\nFINAL(r.results.map((x) => x.taskId + '=' + x.summary).join(' '))",
      );
    });
    const resumed = await createRunner({
      resolveModel: () => second,
      runStore: store.runs,
      isolation: 'inline',
    }).resume('c2', settings, { context: 'ctx' });
    expect(resumed).toMatchObject({ status: 'completed', answer: 't1=ONE t2=TWO' });
    // Task one ran once; task two, cut off by the cancel, ran again.
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 2 });
    await store.close();
  });
});
