import { createRLM } from '@rlm/executor';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { generateBenchmark } from '../generators/generate-benchmark.js';
import { readTaskContext } from '../task/read-task-context.js';
import { NOT_A_BENCHMARK_QUESTION, referencePolicy } from './reference-policy.js';

describe('referencePolicy without a task', () => {
  it('solves each built-in benchmark from the question it reads in the conversation', async () => {
    for (const name of ['sniah', 'aggregate', 'pairs', 'multidoc'] as const) {
      const [task] = generateBenchmark(name, { sizes: [30_000], count: 1, seed: 3 });
      if (task === undefined) throw new Error(`no ${name} task`);
      const rlm = createRLM({ model: scriptedModel(referencePolicy()), maxIterations: 4 });
      const result = await rlm.completion(await readTaskContext(task), { query: task.query });
      expect(result.answer, name).toBe(task.answer);
    }
  }, 60_000);

  it('gives no answer to a question no benchmark asks', async () => {
    const rlm = createRLM({ model: scriptedModel(referencePolicy()), maxIterations: 2 });
    const result = await rlm.completion('the magic number is 42', { query: 'What is it?' });
    expect(result.answer).toBeNull();
    expect(result.partialAnswer).toBe(NOT_A_BENCHMARK_QUESTION);
  });
});
