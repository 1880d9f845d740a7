import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type Store } from '@rlm/memory';
import {
  type LanguageModel,
  RlmError,
  type RunEvent,
  type RunEventOf,
  type RunSettingsInput,
  totalUsage,
} from '@rlm/protocol';
import { labelledRecords, policies, scriptedModel, startFakeOpenAI } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openaiCompatible } from '../models/openai-compatible-model.js';
import { replay } from '../replay/replay.js';
import { createRunner } from '../runner/create-runner.js';
import type { RunnerModelResolver } from '../runner/runner-types.js';

const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };
const task = labelledRecords({ count: 40, seed: 9 });

/** The root is scripted; its `llm_query_batched` prompts go to the fake server through the real client. */
function resolverFor(url: string, root = scriptedModel(policies.chunkAndAggregate())) {
  const sub = openaiCompatible({
    baseURL: url,
    model: 'qwen3-8b',
    provider: 'vllm',
    pricing: PRICE,
  });
  const resolve: RunnerModelResolver = (id) => (id === 'root' ? root : sub);
  return resolve;
}

function hits(events: readonly RunEvent[]): RunEventOf<'model-call-end'>[] {
  return events.filter(
    (event): event is RunEventOf<'model-call-end'> =>
      event.type === 'model-call-end' && event.cache !== undefined,
  );
}

describe('the sub-call cache on SQLite', () => {
  let directory: string;
  const stores: Store[] = [];
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'rlm-call-cache-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const openSqlite = async () => {
    const store = await createStore({ kind: 'sqlite', path: join(directory, 'cache.db') });
    stores.push(store);
    return store;
  };

  it('answers a second identical run without one sub-call request, and reports what it saved', async () => {
    await using server = await startFakeOpenAI({
      flavor: 'vllm',
      script: policies.chunkAndAggregate(),
    });
    const settings: RunSettingsInput = {
      model: 'root',
      subModel: 'sub',
      cache: { store: 'sqlite' },
    };
    const first = createRunner({
      resolveModel: resolverFor(server.url),
      isolation: 'inline',
      callCaches: { sqlite: (await openSqlite()).callCache },
    });
    const firstResult = await first.run(settings, {
      runId: 'first',
      context: task.context,
      query: task.queryFor('billing'),
    });
    const paid = server.requests.length;
    expect(paid).toBeGreaterThan(0);
    expect(totalUsage(firstResult.usage).cachedCalls ?? 0).toBe(0);

    // Another runner on another handle of the same file, as a second CLI process would be.
    const second = createRunner({
      resolveModel: resolverFor(server.url),
      isolation: 'inline',
      callCaches: { sqlite: (await openSqlite()).callCache },
      trajectory: { dir: directory },
    });
    const events: RunEvent[] = [];
    const result = await second.run(settings, {
      runId: 'second',
      context: task.context,
      query: task.queryFor('billing'),
      onEvent: (event) => {
        events.push(event);
      },
    });
    expect(result.answer).toBe(firstResult.answer);
    expect(server.requests.length).toBe(paid);
    const usage = result.usage.models['vllm/qwen3-8b'];
    expect(usage).toMatchObject({ calls: 0, cachedCalls: paid, inputTokens: 0, costUsd: 0 });
    expect(usage?.savedCostUsd).toBeCloseTo(
      firstResult.usage.models['vllm/qwen3-8b']?.costUsd ?? Number.NaN,
      9,
    );
    expect(hits(events)).toHaveLength(paid);
    expect(hits(events)[0]?.cache).toMatchObject({ paidByRunId: 'first' });

    // The trajectory keeps the hits: a replay answers them from it, as free as they were.
    const replayed = await replay(join(directory, 'second.jsonl'), {
      context: task.context,
      isolation: 'inline',
    });
    expect(replayed.result.answer).toBe(result.answer);
    expect(replayed.result.usage.models['vllm/qwen3-8b']).toMatchObject({ cachedCalls: paid });
    expect(server.requests.length).toBe(paid);
  });

  it('sends 50 identical concurrent sub-calls as one request', async () => {
    await using server = await startFakeOpenAI({ flavor: 'vllm', script: 'the same answer' });
    const prompts = Array.from({ length: 50 }, () => '"Summarise: the same chunk"').join(', ');
    const root = scriptedModel([
      `\`\`\`repl\nconst replies = await llm_query_batched([${prompts}]);\nprint(new Set(replies).size)\n\`\`\``,
      'FINAL(done)',
    ]);
    const runner = createRunner({
      resolveModel: resolverFor(server.url, root),
      isolation: 'inline',
      callCaches: { sqlite: (await openSqlite()).callCache },
    });
    const result = await runner.run(
      { model: 'root', subModel: 'sub', cache: { store: 'sqlite', scope: 'tree' } },
      { context: 'x', query: 'q' },
    );
    expect(result.status).toBe('completed');
    expect(server.requests).toHaveLength(1);
    expect(totalUsage(result.usage)).toMatchObject({ cachedCalls: 49 });
  });
});

describe('what the cache leaves alone', () => {
  const sampledModel = (temperature: number): LanguageModel & { sent: () => number } => {
    const inner = scriptedModel(() => 'sub answer', { id: 'sampled/model' });
    return {
      ...inner,
      temperature,
      complete: (request) => inner.complete(request),
      sent: () => inner.calls,
    };
  };
  const twice = '```repl\nprint(await llm_query("same"))\nprint(await llm_query("same"))\n```';

  it('makes every temperature-0.7 call unless includeSampled is set', async () => {
    for (const [includeSampled, expected] of [
      [false, 2],
      [true, 1],
    ] as const) {
      const sub = sampledModel(0.7);
      const root = scriptedModel([twice, 'FINAL(ok)']);
      const runner = createRunner({
        resolveModel: (id) => (id === 'root' ? root : sub),
        isolation: 'inline',
      });
      await runner.run(
        { model: 'root', subModel: 'sub', cache: { store: 'memory', includeSampled } },
        { context: 'x', query: 'q' },
      );
      expect(sub.sent()).toBe(expected);
    }
  });

  it('stores no reply cut at the output cap, no refusal and no error', async () => {
    const replies = [
      { text: 'cut', stopReason: 'max_tokens' as const },
      { text: 'cut', stopReason: 'max_tokens' as const },
      new RlmError({ code: 'model.server_error', message: 'boom', details: { status: 500 } }),
      'fine',
      'never sent',
    ];
    const sub = scriptedModel(replies, { id: 'sub/model' });
    const three =
      '```repl\nprint(await llm_query("a"))\nprint(await llm_query("a"))\nprint(await llm_query("b"))\nprint(await llm_query("b"))\nprint(await llm_query("b"))\n```';
    const root = scriptedModel([three, 'FINAL(ok)']);
    const runner = createRunner({
      resolveModel: (id) => (id === 'root' ? root : sub),
      isolation: 'inline',
    });
    await runner.run(
      { model: 'root', subModel: 'sub', cache: { store: 'memory' } },
      { context: 'x', query: 'q' },
    );
    // Both cut replies were asked for, the failed call was made again, and only then cached.
    expect(sub.calls).toBe(4);
  });

  it('keeps tree-scoped answers to their run tree and shares shared ones across runs', async () => {
    for (const [scope, expected] of [
      ['tree', 4],
      ['shared', 1],
    ] as const) {
      const sub = scriptedModel(() => 'sub answer', { id: 'sub/model' });
      const runner = createRunner({
        resolveModel: (id) =>
          id === 'root' ? scriptedModel([twice, 'FINAL(ok)']) : (sub as LanguageModel),
        isolation: 'inline',
      });
      for (const runId of ['one', 'two', 'three', 'four']) {
        await runner.run(
          { model: 'root', subModel: 'sub', cache: { store: 'memory', scope } },
          { runId, context: 'x', query: 'q' },
        );
      }
      expect(sub.calls).toBe(expected);
    }
  });

  it('refuses a store the door does not have, naming the field', async () => {
    const runner = createRunner({ resolveModel: () => scriptedModel(['FINAL(1)']) });
    const failure = await runner
      .run({ model: 'm', cache: { store: 'postgres' } }, { context: 'x' })
      .catch((error: unknown) => error);
    expect(RlmError.is(failure, 'config.invalid')).toBe(true);
    expect((failure as Error).message).toContain("cache.store: 'postgres' is not available here");
  });
});
