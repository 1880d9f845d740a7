import type { ModelRequest } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { eventLog, isSubCall, repl, testRLM } from '../testing/rlm-test-kit.js';

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

describe('delegate_batch', () => {
  it('returns every task id at once, numbered with delegate, and runs each task', async () => {
    const model = scriptedModel((request) => {
      // A child's context is its task's context, else the task itself.
      if (!isRoot(request)) return repl("FINAL('did ' + context)");
      if (turnOf(request) === 0) {
        return repl(
          [
            "const batch = delegate_batch(['alpha', { task: 'beta', context: 'b' }, { context: 'no task' }])",
            "const single = delegate('gamma')",
            'const ids = batch.concat([single])',
            'const done = await await_results(ids)',
            "const out = JSON.stringify(ids) + ' ' + done.results.map((r) => r.taskId + '=' + (r.ok ? r.summary : 'failed')).join(', ')",
          ].join('\n'),
        );
      }
      return 'FINAL_VAR(out)';
    });
    const result = await testRLM({ model, maxDepth: 2, promptMode: 'coordinator' }).completion(
      'ctx',
    );
    expect(result.answer).toBe(
      '["t1","t2","t3","t4"] t1=did alpha, t2=did b, t3=failed, t4=did gamma',
    );
  });
});

describe('set_answer with ready', () => {
  it('keeps a draft (ready: false) without ending the run, and reports it when no answer comes', async () => {
    const model = scriptedModel((request) =>
      repl(`set_answer('draft ${turnOf(request)}', { ready: false, confidence: 1 })`),
    );
    const result = await testRLM({
      model,
      dispatcher: true,
      maxIterations: 3,
      confidenceThreshold: 0.5,
    }).completion('ctx');
    expect(result).toMatchObject({
      status: 'max_iterations',
      answer: null,
      partialAnswer: 'draft 2',
      iterations: 3,
    });
  });

  it('ends the run with a ready answer, with or without a confidence threshold', async () => {
    const { events, onEvent } = eventLog();
    const model = scriptedModel((request) =>
      turnOf(request) === 0
        ? repl("set_answer('first draft', { ready: false })")
        : repl("set_answer('the answer', { ready: true })"),
    );
    const result = await testRLM({ model, dispatcher: true, onEvent }).completion('ctx');
    expect(result).toMatchObject({ status: 'completed', answer: 'the answer', iterations: 2 });
    expect(events.find((event) => event.type === 'final-answer')).toMatchObject({
      source: 'set_answer',
    });
    const low = scriptedModel((request) =>
      turnOf(request) < 2
        ? repl("set_answer('unsure', { ready: true, confidence: 0.2 })")
        : 'FINAL(sure)',
    );
    const held = await testRLM({
      model: low,
      dispatcher: true,
      confidenceThreshold: 0.5,
    }).completion('ctx');
    expect(held).toMatchObject({ answer: 'sure', iterations: 3 });
  });
});

describe('the task model', () => {
  function coordinator() {
    return scriptedModel((request) => {
      if (turnOf(request) === 0) {
        return repl(
          "const ids = [delegate('plain'), delegate('named', { model: 'scripted/named' })]\nawait await_results(ids)",
        );
      }
      return 'FINAL(done)';
    });
  }
  const child = (id: string) => scriptedModel(() => repl('FINAL("ok")'), { id });

  it('runs tasks on the sub-model by default, on dispatch.model when set, and on a named model', async () => {
    const root = coordinator();
    const sub = child('scripted/sub');
    const named = child('scripted/named');
    await testRLM({
      model: root,
      subModel: sub,
      models: [named],
      maxDepth: 2,
      promptMode: 'coordinator',
    }).completion('ctx');
    expect([root.calls, sub.calls, named.calls]).toEqual([2, 1, 1]);

    const root2 = coordinator();
    const sub2 = child('scripted/sub');
    const tasks = child('scripted/tasks');
    const named2 = child('scripted/named');
    await testRLM({
      model: root2,
      subModel: sub2,
      models: [named2],
      dispatch: { model: tasks },
      maxDepth: 2,
      promptMode: 'coordinator',
    }).completion('ctx');
    expect([root2.calls, sub2.calls, tasks.calls, named2.calls]).toEqual([2, 0, 1, 1]);
  });
});

/** The task ('work', context 'w') calls llm_query twice and a child, which calls it once. */
function taskCode(request: ModelRequest): string {
  if (turnOf(request) > 0) return 'FINAL(done)';
  return taskOf(request) === 'work'
    ? repl(
        "await llm_query('one')\nawait llm_query('two')\nawait rlm_query('three', { context: 'x' })",
      )
    : repl("await llm_query('four')");
}

describe('TaskResult.toolCalls', () => {
  it("counts the host functions a task's code called, its children's included", async () => {
    const model = scriptedModel((request) => {
      if (isSubCall(request)) return 'sub answer';
      if (!isRoot(request)) return taskCode(request);
      return turnOf(request) === 0
        ? repl(
            "const [r] = (await await_results([delegate('work', { context: 'w' })])).results\nconst out = String(r.toolCalls)",
          )
        : 'FINAL_VAR(out)';
    });
    const result = await testRLM({ model, maxDepth: 3, promptMode: 'coordinator' }).completion(
      'ctx',
    );
    expect(result.answer).toBe('4');
  });
});
