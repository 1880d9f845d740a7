import { createStore } from '@rlm/memory';
import {
  type LanguageModel,
  type ModelRequest,
  RlmError,
  type RunEvent,
  totalUsage,
} from '@rlm/protocol';
import { needleHaystack, scriptedModel, withOfflineModels } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRunner } from './create-runner.js';
import type { RunnerModelResolver } from './runner-types.js';

const refuseOthers: RunnerModelResolver = (id) => {
  throw new RlmError({
    code: 'model.unknown_provider',
    message: `no provider for ${id} in this test`,
    details: { modelId: id },
  });
};
const offline = withOfflineModels(refuseOthers);

/** A resolver answering each id with one fixed client (priced or not). */
function fixedModels(models: Record<string, LanguageModel>): RunnerModelResolver {
  return (id) => {
    const model = models[id];
    if (model === undefined) return refuseOthers(id, { repl: 'javascript' });
    return model;
  };
}

const turnOf = (request: ModelRequest) =>
  request.messages.filter((message) => message.role === 'assistant').length;

describe('createRunner', () => {
  it('runs testkit:needle-finder-grep offline, the same id on every door', async () => {
    const task = needleHaystack({ chars: 20_000, seed: 3 });
    const runner = createRunner({ resolveModel: offline, isolation: 'inline' });
    const result = await runner.run(
      { model: 'testkit:needle-finder-grep' },
      { context: task.context, query: task.query },
    );
    expect(result.status).toBe('completed');
    expect(result.answer).toContain(task.answer);
  });

  it('accepts maxSubcalls 0 and ends the run by its budget when a sub-call is made', async () => {
    const runner = createRunner({ resolveModel: offline, isolation: 'inline' });
    const task = needleHaystack({ chars: 5_000, seed: 4 });
    const result = await runner.run(
      { model: 'testkit:delegate-to-child', limits: { maxSubcalls: 0 } },
      { context: task.context, query: task.query },
    );
    // No sub-call is sent: the child that would find the needle never runs.
    expect(result.answer ?? '').not.toContain(task.answer);
    expect(result.usage.models['testkit/delegate-to-child']?.calls ?? 0).toBeLessThanOrEqual(
      result.iterations + 1,
    );
  });

  it('refuses a cost cap on a model with no price, naming the door’s own field', async () => {
    const model = scriptedModel(['FINAL(1)'], { id: 'local/llama' });
    const runner = createRunner({
      resolveModel: fixedModels({ local: model }),
      fieldNames: {
        'limits.maxCostUsd': '--max-cost',
        pricing: '--input-price and --output-price',
      },
    });
    const failure = await runner
      .run({ model: 'local', limits: { maxCostUsd: 1 } }, { context: 'x' })
      .catch((error: unknown) => error);
    expect(RlmError.is(failure, 'config.invalid')).toBe(true);
    expect((failure as Error).message).toContain('--max-cost: the price of local/llama is unknown');
    expect((failure as Error).message).toContain('--input-price and --output-price');
    expect(model.requests).toHaveLength(0);
  });

  it('prices an unpriced model from the settings so its cost cap holds', async () => {
    const model = scriptedModel(['```repl\nconst n = 6 * 7\n```', 'FINAL_VAR(n)'], {
      id: 'local/llama',
    });
    const runner = createRunner({
      resolveModel: fixedModels({ local: model }),
      isolation: 'inline',
    });
    const result = await runner.run(
      {
        model: 'local',
        limits: { maxCostUsd: 1 },
        pricing: { inputPerMTok: 1, outputPerMTok: 2 },
      },
      { context: 'x', query: 'q' },
    );
    expect(result).toMatchObject({ status: 'completed', answer: '42' });
    expect(totalUsage(result.usage).costUsd).toBeGreaterThan(0);
  });

  it('leaves the cap out instead when the runner is told to (an operator default)', async () => {
    const model = scriptedModel(['```repl\nconst n = 1\n```', 'FINAL_VAR(n)'], { id: 'local/x' });
    const runner = createRunner({
      resolveModel: fixedModels({ local: model }),
      unpricedCostCap: 'omit',
      isolation: 'inline',
    });
    const result = await runner.run(
      { model: 'local', limits: { maxCostUsd: 1 } },
      { context: 'x' },
    );
    expect(result.status).toBe('completed');
  });

  it('returns a typed answer as its JSON text when the settings carry an output schema', async () => {
    const model = scriptedModel(['```repl\nconst answer = { n: 7 }\n```', 'FINAL_VAR(answer)'], {
      id: 'scripted/typed',
      pricing: { inputPerMTok: 0, outputPerMTok: 0 },
    });
    const runner = createRunner({
      resolveModel: fixedModels({ typed: model }),
      isolation: 'inline',
    });
    const result = await runner.run(
      {
        model: 'typed',
        outputSchema: {
          type: 'object',
          properties: { n: { type: 'integer' } },
          required: ['n'],
        },
      },
      { context: 'x', query: 'q' },
    );
    expect(result.status).toBe('completed');
    expect(JSON.parse(result.answer ?? 'null')).toEqual({ n: 7 });
  });

  it('opens tool sets before the run and closes them after it, also when one clashes', async () => {
    const closed: string[] = [];
    const set = (name: string, tool: string) => async () => ({
      tools: { [tool]: { description: 'a tool', call: async () => `${name} called` } },
      close: async () => {
        closed.push(name);
      },
    });
    const model = scriptedModel(['```repl\nconst r = await lookup({})\n```', 'FINAL_VAR(r)'], {
      id: 'scripted/tools',
    });
    const runner = createRunner({ resolveModel: fixedModels({ m: model }), isolation: 'inline' });
    const result = await runner.run(
      { model: 'm' },
      { context: 'x', query: 'q', toolSets: [set('first', 'lookup')] },
    );
    expect(result.answer).toBe('first called');
    expect(closed).toEqual(['first']);

    const clash = await runner
      .run({ model: 'm' }, { context: 'x', toolSets: [set('a', 'same'), set('b', 'same')] })
      .catch((error: unknown) => error);
    expect(RlmError.is(clash, 'config.invalid')).toBe(true);
    expect((clash as Error).message).toContain('same is defined twice');
    expect(closed.sort()).toEqual(['a', 'b', 'first']);
  });

  it('opens no tool set and offers no helper when the settings turn tools off', async () => {
    let opened = false;
    const model = scriptedModel(['```repl\nprint(typeof grep)\n```', 'FINAL(done)'], {
      id: 'scripted/bare',
    });
    const runner = createRunner({ resolveModel: fixedModels({ m: model }), isolation: 'inline' });
    await runner.run(
      { model: 'm', tools: false },
      {
        context: 'x',
        toolSets: [
          async () => {
            opened = true;
            return { tools: {}, close: async () => undefined };
          },
        ],
      },
    );
    expect(opened).toBe(false);
    const seen = (model.requests[1]?.messages ?? []).map((message) => message.content).join('\n');
    expect(seen).toContain('undefined');
  });

  it('runs in coordinator mode when the settings say so', async () => {
    const model = scriptedModel((request) =>
      turnOf(request) === 0 ? '```repl\nprint(typeof delegate)\n```' : 'FINAL(ok)',
    );
    const runner = createRunner({ resolveModel: fixedModels({ m: model }), isolation: 'inline' });
    const result = await runner.run(
      { model: 'm', mode: 'coordinator', limits: { maxDepth: 2 } },
      { context: 'x' },
    );
    expect(result.answer).toBe('ok');
    const seen = (model.requests[1]?.messages ?? []).map((message) => message.content).join('\n');
    expect(seen).toContain('function');
  });

  it('knows which stored runs can be resumed, and refuses the others by code', async () => {
    const store = await createStore({ kind: 'memory' });
    const model = scriptedModel(['```repl\nconst n = 1\n```', 'FINAL_VAR(n)']);
    const runner = createRunner({
      resolveModel: fixedModels({ m: model }),
      runStore: store.runs,
      isolation: 'inline',
    });
    await runner.run({ model: 'm' }, { runId: 'done', context: 'x', query: 'q' });
    const finished = await runner.findResumable('done').catch((error: unknown) => error);
    expect(RlmError.is(finished, 'executor.not_resumable')).toBe(true);
    expect((finished as RlmError<'executor.not_resumable'>).details.status).toBe('completed');
    const unknown = await runner.findResumable('nope').catch((error: unknown) => error);
    expect((unknown as RlmError<'executor.not_resumable'>).details.status).toBeNull();
    expect((await store.runs.getRun('done'))?.config['settings']).toMatchObject({ model: 'm' });
  });

  it('resumes a budget-stopped run from its checkpoint and finishes it', async () => {
    const store = await createStore({ kind: 'memory' });
    const first = scriptedModel((request) =>
      turnOf(request) === 0 ? '```repl\nconst a = 20\n```' : '```repl\nconst b = a + 1\n```',
    );
    const events: RunEvent[] = [];
    const stopped = await createRunner({
      resolveModel: fixedModels({ m: first }),
      runStore: store.runs,
      isolation: 'inline',
    }).run(
      { model: 'm', limits: { maxIterations: 2 } },
      { runId: 'r1', context: 'x', query: 'q', onEvent: (event) => void events.push(event) },
    );
    expect(stopped.status).toBe('max_iterations');
    await store.runs.updateRun('r1', { status: 'budget_exceeded' });

    const second = scriptedModel(['```repl\nconst c = b * 2\n```', 'FINAL_VAR(c)']);
    const runner = createRunner({
      resolveModel: fixedModels({ m: second }),
      runStore: store.runs,
      isolation: 'inline',
    });
    expect((await runner.findResumable('r1')).status).toBe('budget_exceeded');
    const resumed = await runner.resume('r1', { model: 'm' }, { context: 'x' });
    expect(resumed).toMatchObject({ runId: 'r1', status: 'completed', answer: '42' });
  });

  it('runs a failing child again on the settings’ escalation ladder, after escalateAfterErrors turns', async () => {
    const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;
    const cheap = scriptedModel(
      (request) =>
        (request.system ?? '').includes('WORKER')
          ? repl('throw new Error("stuck")')
          : repl('FINAL(await rlm_query("solve", { systemPrompt: "WORKER" }))'),
      { id: 'scripted/cheap' },
    );
    const strong = scriptedModel([repl('FINAL("42")')], { id: 'scripted/strong' });
    const events: RunEvent[] = [];
    const runner = createRunner({
      resolveModel: fixedModels({ cheap, strong }),
      isolation: 'inline',
    });
    const result = await runner.run(
      { model: 'cheap', escalate: ['strong'], escalateAfterErrors: 2, limits: { maxDepth: 2 } },
      { context: 'x', onEvent: (event) => void events.push(event) },
    );
    expect(result.answer).toBe('42');
    // The root's one turn, then the child's two failed turns.
    expect(cheap.requests).toHaveLength(3);
    expect(events.filter((event) => event.type === 'escalation')).toMatchObject([
      { fromModel: 'scripted/cheap', toModel: 'scripted/strong', reason: 'errors' },
    ]);
  });

  it('refuses a cost cap when a model of the escalation ladder has no price', async () => {
    const priced = scriptedModel([], { id: 'p', pricing: { inputPerMTok: 1, outputPerMTok: 1 } });
    const unpriced = scriptedModel([], { id: 'u' });
    const runner = createRunner({
      resolveModel: fixedModels({ p: priced, u: unpriced }),
      isolation: 'inline',
    });
    await expect(
      runner.run({ model: 'p', escalate: ['u'], limits: { maxCostUsd: 1 } }, { context: 'x' }),
    ).rejects.toThrow(/the price of u is unknown/);
  });
});
