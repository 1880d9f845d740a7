import { describe, expect, it } from 'vitest';
import { generateAggregate } from '../generators/generate-aggregate.js';
import { generateSniah } from '../generators/generate-sniah.js';
import { createModelResolver } from '../runner/model-resolver.js';
import { runEval } from '../runner/run-eval.js';

describe('offline testkit models', () => {
  it('run the testkit needleFinder and chunkAndAggregate policies through the RLM loop', async () => {
    const sniah = generateSniah({ size: 6_000, seed: 4 });
    // A seed whose question is a plain count, the one chunkAndAggregate answers.
    const aggregate = Array.from(
      { length: 20 },
      (_, seed) => generateAggregate({ size: 3_000, seed })[0],
    ).find((task) => task?.meta['question'] === 'count');
    if (aggregate === undefined) throw new Error('no count question in 20 seeds');
    const run = await runEval({
      tasks: [...sniah, aggregate],
      systems: [
        { name: 'needle', kind: 'rlm', model: 'testkit:needle-finder' },
        { name: 'aggregate', kind: 'rlm', model: 'testkit:chunkAndAggregate' },
      ],
      resolveModel: createModelResolver(),
    });
    const passed = (system: string, taskId: string) =>
      run.rows.find((row) => row.system === system && row.taskId === taskId)?.passed;
    expect(passed('needle', sniah[0]?.id ?? '')).toBe(true);
    expect(passed('aggregate', aggregate.id)).toBe(true);
    expect(run.rows.every((row) => row.costUsd > 0 && row.model.startsWith('testkit/'))).toBe(true);
  }, 60_000);
});
