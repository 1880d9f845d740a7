import type { ModelRequest, RunEvent } from '@rlm/protocol';
import { labelledRecords, needleHaystack, policies, scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createRLM } from '../index.js';
import { repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

describe('end-to-end tasks', () => {
  it('finds a needle in 1M characters with the needle-finder policy (chunks + batched sub-calls)', async () => {
    const task = needleHaystack({ chars: 1_000_000, seed: 11 });
    const model = scriptedModel(policies.needleFinder());
    const result = await testRLM({ model }).completion(task.context, { query: task.query });
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
    expect(result.usage.models['scripted/model']?.calls).toBeGreaterThan(50);
  });

  it('finds a needle in 10M characters with the needle-finder policy grepping on the host', async () => {
    const task = needleHaystack({ chars: 10_000_000, seed: 12 });
    const model = scriptedModel(policies.needleFinder({ useGrep: true }));
    const result = await testRLM({ model }).completion(task.context, { query: task.query });
    expect(result).toMatchObject({ status: 'completed', answer: task.answer });
  });

  it('aggregates 200 records with a batched llm_query fan-out', async () => {
    const task = labelledRecords({ count: 200, seed: 5 });
    const model = scriptedModel(policies.chunkAndAggregate({ target: 'billing', batchSize: 1 }));
    const subModel = scriptedModel(
      policies.chunkAndAggregate({ target: 'billing', batchSize: 1 }),
      {
        id: 'scripted/sub',
      },
    );
    // The context carries the texts only, never the true labels.
    const records = task.records.map(({ id, text }) => ({ id, text }));
    const result = await testRLM({ model, subModel, maxConcurrency: 16 }).completion(records, {
      query: task.queryFor('billing'),
    });
    expect(result).toMatchObject({ status: 'completed', answer: String(task.counts['billing']) });
    expect(subModel.calls).toBe(200);
  });

  it('runs two RLMs concurrently without interference, a spinning one never stalling the other', async () => {
    const events: { run: string; event: RunEvent }[] = [];
    const spinner = createRLM({
      model: scriptedModel([repl('const mine = context; while (true) {}'), 'FINAL_VAR(mine)']),
      limits: { cpuSliceMs: 3000 },
      onEvent: (event) => void events.push({ run: 'spinner', event }),
    });
    const reader = createRLM({
      model: scriptedModel((request) =>
        turnOf(request) === 0 ? repl('const mine = context.toUpperCase()') : 'FINAL_VAR(mine)',
      ),
      onEvent: (event) => void events.push({ run: 'reader', event }),
    });
    const [spun, read] = await Promise.all([
      spinner.completion('context of run one'),
      reader.completion('context of run two'),
    ]);
    expect(read).toMatchObject({ status: 'completed', answer: 'CONTEXT OF RUN TWO' });
    expect(spun).toMatchObject({ status: 'completed', answer: 'context of run one' });
    const order = events.map(({ run, event }) => `${run}:${event.type}`);
    expect(order.indexOf('reader:run-end')).toBeLessThan(order.indexOf('spinner:block-end'));
  });
});
