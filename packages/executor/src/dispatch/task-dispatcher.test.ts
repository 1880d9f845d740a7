import type { ModelRequest, RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

/** Root requests carry the dispatcher section of the coordinator prompt; children are solvers. */
function isRoot(request: ModelRequest): boolean {
  return request.system?.includes('## Background tasks') === true;
}

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** The child's task: the quoted prompt in its first turn prompt. */
function taskOf(request: ModelRequest): string {
  const first = request.messages.find(
    (message) => message.role === 'user' && message.content.includes('original prompt'),
  );
  return first?.content.match(/original prompt: "([^"]*)"/)?.[1] ?? '';
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function taskEnds(events: readonly RunEvent[]) {
  return events.filter((event) => event.type === 'task-end');
}

describe('coordinator dispatch', () => {
  it('delegates three hypotheses, keeps working, and harvests them in a later turn with stream_results', async () => {
    const { events, onEvent } = eventLog();
    const release = deferred();
    const allDone = deferred();
    const verdicts: Record<string, string> = {
      'Hypothesis A': 'A holds: config push at 10:02',
      'Hypothesis B': 'B fails: failover came later',
      'Hypothesis C': `C is inconclusive${'.'.repeat(200)}`,
    };
    const model = scriptedModel(async (request) => {
      if (!isRoot(request)) {
        await release.promise;
        const verdict = verdicts[taskOf(request)] ?? 'unknown task';
        return repl(`FINAL(${JSON.stringify(verdict)})`);
      }
      switch (turnOf(request)) {
        case 0:
          return repl(
            [
              "const ids = ['A', 'B', 'C'].map((h) => delegate('Hypothesis ' + h, { context: 'logs for ' + h }))",
              'print(ids)',
            ].join('\n'),
          );
        case 1:
          // The children are still working while the root keeps going.
          release.resolve();
          await allDone.promise;
          return repl('const size = context.length');
        case 2:
          return repl(
            [
              'const got = await stream_results()',
              'const again = await stream_results()',
              "const full = await inspect('task:t3')",
              "const report = got.map((r) => r.taskId + '=' + r.ok + ':' + r.summary).sort().join(' | ') + ' #' + again.length + ' #' + full.raw.output.length",
            ].join('\n'),
          );
        default:
          return 'FINAL_VAR(report)';
      }
    });
    const rlm = testRLM({
      model,
      maxDepth: 2,
      promptMode: 'coordinator',
      dispatch: { summaryChars: 40 },
      onEvent: (event) => {
        onEvent(event);
        if (taskEnds(events).length === 3) allDone.resolve();
      },
    });
    const result = await rlm.completion('incident logs', { query: 'What caused the outage?' });
    expect(result.status).toBe('completed');
    const parts = result.answer!.split(' | ');
    expect(parts[0]).toBe('t1=true:A holds: config push at 10:02');
    expect(parts[1]).toBe('t2=true:B fails: failover came later');
    expect(parts[2]).toBe(
      `t3=true:C is inconclusive${'.'.repeat(23)}… (177 more characters: inspect('task:t3')) #0 #217`,
    );
    const rootPrompts = model.requests
      .filter(isRoot)
      .map((request) => lastMessage(request).content);
    expect(rootPrompts[1]).toContain('still running: t1 "Hypothesis A", t2 "Hypothesis B", t3');
    expect(rootPrompts[2]).toContain('finished since your last turn: t1 (ok), t2 (ok), t3 (ok)');
    expect(rootPrompts[2]).toContain(
      'not read yet (`await stream_results()` returns them): t1, t2, t3',
    );
    expect(rootPrompts[2]).not.toContain('still running');
    expect(rootPrompts[3]).not.toContain('Background tasks');
    const starts = events.filter((event) => event.type === 'task-start');
    expect(starts.map((event) => event.type === 'task-start' && event.task)).toEqual([
      'Hypothesis A',
      'Hypothesis B',
      'Hypothesis C',
    ]);
    // The children's model calls count in the root's tree-wide usage.
    expect(result.usage.models['scripted/model']?.calls).toBe(7);
  });

  it('reports what finished and what timed out from await_results, and cancels the rest at run end', async () => {
    const { events, onEvent } = eventLog();
    const model = scriptedModel(async (request) => {
      if (!isRoot(request)) {
        if (taskOf(request) === 'quick') return repl('FINAL("fast")');
        return new Promise<string>(() => undefined); // never answers: only cancellation ends it
      }
      return turnOf(request) === 0
        ? repl(
            [
              "const q = delegate('quick', { context: 'a' })",
              "const s = delegate('slow', { context: 'b' })",
              'const first = await await_results([q], {})',
              'const r = await await_results([q, s], { timeoutMs: 100 })',
              "const seen = r.results.map((x) => x.taskId + ':' + x.summary).join(',') + ' timedOut=' + r.timedOut.join(',')",
            ].join('\n'),
          )
        : 'FINAL_VAR(seen)';
    });
    const result = await testRLM({ model, maxDepth: 2, dispatcher: true, onEvent }).completion(
      'ctx',
    );
    expect(result).toMatchObject({ status: 'completed', answer: 't1:fast timedOut=t2' });
    const ends = taskEnds(events);
    expect(ends.map((event) => event.type === 'task-end' && [event.taskId, event.ok])).toEqual([
      ['t1', true],
      ['t2', false],
    ]);
    expect(ends[1]).toMatchObject({
      summary: expect.stringContaining('cancelled because the run ended'),
    });
    // The cancellation is reported before the run ends, and the child run ended as cancelled.
    const order = events.map((event) => `${event.type}:${event.runId}`);
    expect(order.indexOf(`task-end:${result.runId}`, order.indexOf('task-end') + 1)).toBeLessThan(
      order.indexOf(`run-end:${result.runId}`),
    );
    const childEnd = events.find(
      (event) => event.type === 'run-end' && event.runId === `${result.runId}.2`,
    );
    expect(childEnd).toMatchObject({ status: 'cancelled' });
  });

  it('stops a task at its timeout and reports it as failed', async () => {
    const model = scriptedModel(async (request) => {
      if (!isRoot(request)) return new Promise<string>(() => undefined);
      return turnOf(request) === 0
        ? repl(
            "const r = await await_results([delegate('stuck', { context: 's' })])\nconst out = r.results[0].ok + ':' + r.results[0].error",
          )
        : 'FINAL_VAR(out)';
    });
    const result = await testRLM({
      model,
      maxDepth: 2,
      dispatcher: true,
      dispatch: { taskTimeoutMs: 100 },
    }).completion('ctx');
    expect(result.answer).toBe('false:task t1 timed out after 100 ms');
  });

  it('runs at most maxConcurrency tasks at once', async () => {
    let running = 0;
    let peak = 0;
    const model = scriptedModel(async (request) => {
      if (!isRoot(request)) {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
        return repl(`FINAL(${JSON.stringify(taskOf(request).toUpperCase())})`);
      }
      return turnOf(request) === 0
        ? repl(
            "const r = await await_results(['a', 'b', 'c', 'd', 'e'].map((x) => delegate(x, { context: x })))\nconst out = r.results.map((x) => x.summary).sort().join('')",
          )
        : 'FINAL_VAR(out)';
    });
    const result = await testRLM({
      model,
      maxDepth: 2,
      dispatcher: true,
      dispatch: { maxConcurrency: 2 },
    }).completion('ctx');
    expect(result.answer).toBe('ABCDE');
    expect(peak).toBeLessThanOrEqual(2);
  });

  it('reports a delegate with bad arguments as a failed task naming what was expected', async () => {
    const model = scriptedModel((request) =>
      turnOf(request) === 0
        ? repl(
            "const id = delegate('x', { tools: 'all' })\nconst r = await await_results([id])\nconst out = id + ':' + r.results[0].error",
          )
        : 'FINAL_VAR(out)',
    );
    const result = await testRLM({ model, maxDepth: 2, dispatcher: true }).completion('ctx');
    expect(result.answer).toMatch(
      /^t1:delegate expects \(task: string, \{ context, systemPrompt, model, tools \}\?\) \(argument 2\.tools: /,
    );
  });

  it('limits a delegated child to the tools it was given', async () => {
    const tool = (name: string) => ({
      description: `${name}() returns its name.`,
      call: async () => name,
    });
    const model = scriptedModel((request) => {
      if (!isRoot(request)) {
        return repl('FINAL(typeof alpha + "," + typeof beta)');
      }
      return turnOf(request) === 0
        ? repl(
            "const r = await await_results([delegate('check', { tools: ['alpha'] })])\nconst out = r.results[0].summary",
          )
        : 'FINAL_VAR(out)';
    });
    const result = await testRLM({
      model,
      maxDepth: 2,
      dispatcher: true,
      tools: { alpha: tool('alpha'), beta: tool('beta') },
    }).completion('ctx');
    expect(result.answer).toBe('function,undefined');
    const child = model.requests.find((request) => !isRoot(request));
    expect(child?.system).toContain('alpha() returns its name.');
    expect(child?.system).not.toContain('beta() returns its name.');
  });

  it('starts a task whose block ended at once, in a worker sandbox, and returns it in a later turn', async () => {
    const model = scriptedModel((request) => {
      if (!isRoot(request)) return repl('FINAL("child done")');
      switch (turnOf(request)) {
        case 0:
          return repl("const id = delegate('later', { context: 'x' })");
        case 1:
          return repl(
            'const r = await await_results([id])\nconst out = id + ":" + r.results[0].summary',
          );
        default:
          return 'FINAL_VAR(out)';
      }
    });
    const result = await testRLM({
      model,
      maxDepth: 2,
      dispatcher: true,
      isolation: 'worker',
    }).completion('ctx');
    expect(result.answer).toBe('t1:child done');
  });

  it('gives solver runs no dispatcher verbs', async () => {
    const model = scriptedModel([
      repl('const t = typeof delegate + typeof stream_results'),
      'FINAL_VAR(t)',
    ]);
    const result = await testRLM({ model, maxDepth: 2 }).completion('ctx');
    expect(result.answer).toBe('undefinedundefined');
  });
});

describe('set_answer', () => {
  function proposer(confidences: readonly number[]) {
    return scriptedModel((request) => {
      const turn = turnOf(request);
      const confidence = confidences[turn];
      return confidence === undefined
        ? 'FINAL(from final)'
        : repl(`print(set_answer('answer ${turn}', { confidence: ${confidence} }))`);
    });
  }

  it('ends the run once a set_answer reaches the confidence threshold', async () => {
    const { events, onEvent } = eventLog();
    const result = await testRLM({
      model: proposer([0.4, 0.79, 0.8, 0.95]),
      dispatcher: true,
      confidenceThreshold: 0.8,
      onEvent,
    }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'answer 2', iterations: 3 });
    expect(events.find((event) => event.type === 'final-answer')).toMatchObject({
      source: 'set_answer',
    });
  });

  it('never ends the run early without a threshold; FINAL stays the way to finish', async () => {
    const result = await testRLM({ model: proposer([0.99, 1]), dispatcher: true }).completion(
      'ctx',
    );
    expect(result).toMatchObject({ status: 'completed', answer: 'from final', iterations: 3 });
  });

  it('lets FINAL win over a confident set_answer in the same turn', async () => {
    const model = scriptedModel([
      repl("set_answer('proposed', { confidence: 1 })\nFINAL('final')"),
    ]);
    const result = await testRLM({
      model,
      dispatcher: true,
      confidenceThreshold: 0.5,
    }).completion('ctx');
    expect(result.answer).toBe('final');
  });

  it('answers bad arguments with an error string naming the expected shape', async () => {
    const model = scriptedModel([
      repl("const r = set_answer('x', { confidence: 2 })\nconst out = await r"),
      'FINAL_VAR(out)',
    ]);
    const result = await testRLM({
      model,
      dispatcher: true,
      confidenceThreshold: 0.5,
    }).completion('ctx');
    expect(result.answer).toMatch(
      /^Error: set_answer expects \(content, \{ ready: boolean, confidence: number between 0 and 1 \}\?\) \(argument 1\.confidence: /,
    );
  });
});
