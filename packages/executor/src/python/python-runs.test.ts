import { createStore } from '@rlm/memory';
import type { JsonValue, ModelRequest, RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { closePythonPool } from '@rlm/sandbox-python';
import {
  chunkAndAggregate,
  delegateToChild,
  labelledRecords,
  needleFinder,
  needleHaystack,
  scriptedModel,
} from '@rlm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { exportRlmpaperLog, memoryTrajectorySink, replay } from '../index.js';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';
import { prewarmPythonRepl } from './prewarm-python-repl.js';

// Every run here starts real Pyodide interpreters. Two are loaded up front (the first load of a
// process takes seconds on a busy machine); each sandbox made afterwards starts the next spare.
beforeAll(() => prewarmPythonRepl({ count: 2 }), 180_000);
afterAll(() => closePythonPool());

// A test waits for an interpreter whenever no spare is loaded yet (a load of 1–3 s, far longer on
// a busy machine, per sandbox of a fan-out): room beyond the package's 60 s default.
const PYTHON_RUNS = { timeout: 180_000 };

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

const starts = (events: readonly RunEvent[]) =>
  events.filter((event) => event.type === 'run-start');

describe("createRLM({ repl: 'python' })", PYTHON_RUNS, () => {
  it('finds a needle with Python code and a batched fan-out, on a Python prompt', async () => {
    const task = needleHaystack({ chars: 200_000, seed: 3 });
    const model = scriptedModel(needleFinder({ language: 'python', chunkChars: 20_000 }));
    const { events, onEvent } = eventLog();
    const sink = memoryTrajectorySink();
    const rlm = testRLM({ model, repl: 'python', onEvent, trajectory: sink });
    const result = await rlm.completion(task.context, { query: task.query });
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
    expect(model.requests[0]?.system).toContain('working inside a Python REPL loop');
    // One llm_query_batched call, one sub-call per chunk of about 20,000 characters.
    const output = events.flatMap((event) => (event.type === 'block-end' ? [event.stdout] : []));
    const chunks = Number(/searching (\d+) chunks/.exec(output.join(''))?.[1]);
    expect(chunks).toBeGreaterThanOrEqual(10);
    expect(events.filter((event) => event.type === 'subcall-start')).toHaveLength(chunks);
    expect(starts(events)).toEqual([expect.objectContaining({ repl: 'python' })]);
    const header = sink.records.find((record) => record.kind === 'header');
    expect(header).toMatchObject({ repl: 'python', config: { repl: 'python' } });
  });

  it('runs children in Python REPLs of their own through rlm_query', async () => {
    const task = needleHaystack({ chars: 40_000, seed: 8, depth: 0.7 });
    const model = scriptedModel(delegateToChild({ language: 'python', parts: 2 }));
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, repl: 'python', maxDepth: 2, onEvent }).completion(
      task.context,
    );
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
    const children = starts(events).filter((event) => event.depth === 1);
    expect(children).toHaveLength(2);
    for (const child of children) expect(child).toMatchObject({ repl: 'python' });
    const childRequest = model.requests.find((request) => request.system?.includes('depth 1'));
    expect(childRequest?.system).toContain('Python REPL');
  });

  it('aggregates over records with batched sub-calls', async () => {
    const task = labelledRecords({ count: 30, seed: 5 });
    const model = scriptedModel(chunkAndAggregate({ language: 'python', target: 'billing' }));
    // A list of dicts: Python reads each record's 'text'.
    const records = JSON.parse(JSON.stringify(task.records)) as JsonValue;
    const result = await testRLM({ model, repl: 'python' }).completion(records);
    expect(result.answer).toBe(String(task.counts['billing']));
  });

  it('passes keyword arguments to tools as one options object and raises HostError on failure', async () => {
    const seen: unknown[] = [];
    const tools = {
      lookup: {
        description: 'Looks a key up.',
        call: async (args: unknown[]) => {
          seen.push(args);
          return 'found';
        },
      },
      broken: {
        description: 'Always fails.',
        call: async () => {
          throw new Error('the backend is down');
        },
      },
    };
    const code = [
      "a = lookup('key', max_hits=2)",
      'try:',
      '    broken()',
      'except HostError as error:',
      '    b = str(error)',
      "FINAL(a + ' / ' + b)",
    ].join('\n');
    const model = scriptedModel([repl(code)]);
    const result = await testRLM({ model, repl: 'python', tools }).completion('ctx');
    expect(seen).toEqual([['key', { maxHits: 2 }]]);
    expect(result.answer).toBe('found / the backend is down');
    expect(model.requests[0]?.system).toContain('- `lookup(…)`: Looks a key up.');
  });

  it('gives each child of rlm_query_batched its own data and specialist prompt from dict items', async () => {
    const model = scriptedModel((request) => {
      if (request.system?.includes('You answer in capitals.')) {
        return repl('FINAL(context.upper())');
      }
      const items =
        "[{'prompt': 'shout', 'context': word, 'system_prompt': 'You answer in capitals.'} for word in ['ab', 'cd']]";
      return repl(`answers = rlm_query_batched(${items})\nFINAL('-'.join(answers))`);
    });
    const result = await testRLM({ model, repl: 'python', maxDepth: 2 }).completion('root');
    expect(result).toMatchObject({ status: 'completed', answer: 'AB-CD' });
  });

  it('refreshes __rlm each turn, restores rebound scaffold names and reads FINAL_VAR from Python', async () => {
    const model = scriptedModel((request) =>
      turnOf(request) === 0
        ? repl("first = __rlm['iteration']\nllm_query = 5")
        : repl("result = f\"{first},{__rlm['iteration']},{llm_query('ping')}\"\nprint(result)") +
          '\n\nFINAL_VAR(result)',
    );
    const subModel = scriptedModel(() => 'pong', { id: 'scripted/sub' });
    const result = await testRLM({ model, subModel, repl: 'python' }).completion('ctx');
    expect(result.answer).toBe('0,1,pong');
  });

  it('takes a typed answer from FINAL and FINAL_VAR called in Python code', async () => {
    const invoice = z.object({ total: z.number(), paid: z.boolean(), lines: z.array(z.string()) });
    for (const code of [
      'FINAL({"total": 12.5, "paid": True, "lines": ["a", "b"]})',
      'result = {"total": 12.5, "paid": True, "lines": ("a", "b")}\nFINAL_VAR("result")',
    ]) {
      const model = scriptedModel([repl(code)]);
      const result = await testRLM({ model, repl: 'python', output: invoice }).completion('ctx');
      expect(result).toMatchObject({
        status: 'completed',
        answer: { total: 12.5, paid: true, lines: ['a', 'b'] },
      });
    }
  });

  it('lets the dispatcher verbs run background children from Python', async () => {
    const rootCode = [
      "ids = [delegate('find a', context='alpha'), delegate('find b', context='beta', system_prompt='Be terse.')]",
      'outcome = await_results(ids, timeout_ms=60_000)',
      "summaries = [result['summary'] for result in outcome['results']]",
      "set_answer(' | '.join(summaries), confidence=0.95)",
      'print(ids, outcome["timedOut"])',
    ].join('\n');
    const model = scriptedModel((request) =>
      /depth 1/.test(request.system ?? '') ? repl('FINAL(context.upper())') : repl(rootCode),
    );
    const { events, onEvent } = eventLog();
    const rlm = testRLM({
      model,
      repl: 'python',
      promptMode: 'coordinator',
      maxDepth: 2,
      confidenceThreshold: 0.9,
      onEvent,
    });
    const result = await rlm.completion('two hypotheses');
    expect(result).toMatchObject({ status: 'completed', answer: 'ALPHA | BETA' });
    const output = events.find((event) => event.type === 'block-end' && event.depth === 0);
    expect(output).toMatchObject({ stdout: "['t1', 't2'] []\n" });
    expect(model.requests[0]?.system).toContain('`await_results(ids, timeout_ms=…)`');
  });

  it('starts a batch of tasks with delegate_batch and keeps a draft with set_answer(ready=False)', async () => {
    const model = scriptedModel((request) => {
      if (/depth 1/.test(request.system ?? '')) return repl('FINAL(context.upper())');
      if (turnOf(request) === 0) {
        return repl(
          [
            "ids = delegate_batch(['alpha', {'task': 'find b', 'context': 'beta'}]) + [delegate('gamma')]",
            'outcome = await_results(ids, timeout_ms=60_000)',
            "set_answer(' | '.join(r['summary'] for r in outcome['results']), ready=False)",
            'print(ids)',
          ].join('\n'),
        );
      }
      return turnOf(request) === 1
        ? repl("set_answer('final: ' + str(len(ids)), ready=True)")
        : 'FINAL(never)';
    });
    const { events, onEvent } = eventLog();
    const drafts = await testRLM({
      model,
      repl: 'python',
      promptMode: 'coordinator',
      maxDepth: 2,
      maxIterations: 1,
      onEvent,
    }).completion('root');
    expect(drafts).toMatchObject({ answer: null, partialAnswer: 'ALPHA | BETA | GAMMA' });
    const output = events.find((event) => event.type === 'block-end' && event.depth === 0);
    expect(output).toMatchObject({ stdout: "['t1', 't2', 't3']\n" });
    const ready = await testRLM({
      model,
      repl: 'python',
      promptMode: 'coordinator',
      maxDepth: 2,
    }).completion('root');
    expect(ready).toMatchObject({ status: 'completed', answer: 'final: 3' });
  });

  it("runs a Python child under a JavaScript root when rlm_query asks for repl: 'python'", async () => {
    const model = scriptedModel((request) =>
      request.system?.includes('Python REPL')
        ? repl("FINAL(type(context).__name__ + ':' + context[::-1])")
        : repl(
            "const r = await rlm_query('reverse', { context: 'abc', repl: 'python' })\nFINAL(r)",
          ),
    );
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, maxDepth: 2, onEvent }).completion('root');
    expect(result.answer).toBe('str:cba');
    expect(starts(events).map((event) => event.repl)).toEqual([undefined, 'python']);
  });
});

describe('cancelling a Python run', PYTHON_RUNS, () => {
  it('stops a block that spins forever and ends the run as cancelled', async () => {
    const controller = new AbortController();
    const model = scriptedModel([repl('while True:\n    pass')]);
    const rlm = testRLM({
      model,
      repl: 'python',
      onEvent: (event) => {
        if (event.type === 'block-start') setTimeout(() => controller.abort(), 200);
      },
    });
    const started = Date.now();
    const result = await rlm.completion('ctx', { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    // The interrupt stops the block within about a second; the bound leaves a busy machine room.
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});

describe('Python runs recorded, replayed and resumed', PYTHON_RUNS, () => {
  const ROOT_CODE =
    "words = context.split(' ')\nshout = llm_query_batched(words)\nsummary = '-'.join(shout)";

  async function record(): Promise<TrajectoryRecord[]> {
    const model = scriptedModel([repl(ROOT_CODE), 'FINAL_VAR(summary)']);
    const subModel = scriptedModel((request) => lastMessage(request).content.toUpperCase(), {
      id: 'scripted/sub',
    });
    const sink = memoryTrajectorySink();
    const result = await testRLM({ model, subModel, repl: 'python', trajectory: sink }).completion(
      'alpha beta',
    );
    expect(result.answer).toBe('ALPHA-BETA');
    return sink.records;
  }

  it('replays a Python recording in Python, with the same answer and events', async () => {
    const records = await record();
    const { result } = await replay(records, { context: 'alpha beta', isolation: 'inline' });
    expect(result).toMatchObject({ status: 'completed', answer: 'ALPHA-BETA' });
    // The reference engine's log names the interpreter the REPL ran.
    const metadata = JSON.parse(exportRlmpaperLog(records).split('\n')[0] ?? '{}');
    expect(metadata).toMatchObject({ type: 'metadata', environment_type: 'pyodide' });
  });

  it('resumes a Python run in Python, whatever language the resuming RLM is configured with', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const firstModel = scriptedModel(async (request) => {
      if (turnOf(request) === 0) return repl("kept = llm_query('first') + '!'");
      stop.abort();
      return new Promise<string>(() => undefined);
    });
    const sub = scriptedModel((request) => lastMessage(request).content.toUpperCase(), {
      id: 'scripted/sub',
    });
    const first = await testRLM({
      model: firstModel,
      subModel: sub,
      repl: 'python',
      runStore: store.runs,
      generateId: () => 'py-run',
    }).completion('ctx', { signal: stop.signal });
    expect(first.status).toBe('cancelled');

    const model = scriptedModel([repl('FINAL(kept + str(len(context)))')]);
    const result = await testRLM({ model, subModel: sub, runStore: store.runs }).resume('py-run', {
      context: 'ctx',
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'FIRST!3' });
    expect(model.requests[0]?.system).toContain('Python REPL');
    expect(sub.calls).toBe(1);
    await store.close();
  });

  it('keeps one Python REPL across the runs of a session', async () => {
    const model = scriptedModel((request) => {
      const second = request.messages[0]?.content.includes('context_1') ?? false;
      return second
        ? repl("FINAL(carried + ':' + context_1 + ':' + str(len(history)))")
        : repl("carried = context.upper()\nFINAL('ok')");
    });
    const session = testRLM({ model, repl: 'python' }).session();
    try {
      expect((await session.completion('one')).answer).toBe('ok');
      expect((await session.completion('two')).answer).toBe('ONE:two:4');
    } finally {
      await session.close();
    }
  });
});
