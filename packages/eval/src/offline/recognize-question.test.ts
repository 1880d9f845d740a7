import { describe, expect, it } from 'vitest';
import { generateBenchmark } from '../generators/generate-benchmark.js';
import { recognizeQuestion } from './recognize-question.js';

/** The metadata fields each reference solver reads. */
const SOLVER_FIELDS: Record<string, readonly string[]> = {
  sniah: ['keys'],
  aggregate: ['label', 'otherLabel', 'month'],
  pairs: ['label'],
  multidoc: ['founder', 'hops'],
};

describe('recognizeQuestion', () => {
  it('reads every generated question back into the metadata its solver needs', () => {
    for (const name of ['sniah', 'aggregate', 'pairs', 'multidoc'] as const) {
      for (const needles of [1, 3]) {
        if (needles > 1 && name !== 'sniah') continue;
        const tasks = generateBenchmark(name, { sizes: [4_000], count: 12, seed: 5, needles });
        for (const task of tasks) {
          const fields = SOLVER_FIELDS[name] ?? [];
          const expected = Object.fromEntries(fields.map((field) => [field, task.meta[field]]));
          expect(recognizeQuestion(task.query), task.query).toEqual({
            benchmark: name,
            ...expected,
          });
        }
      }
    }
  });

  it('recognises no other question', () => {
    expect(recognizeQuestion('What is the magic number?')).toBeUndefined();
    expect(recognizeQuestion('How many of the records are about 42 things?')).toBeUndefined();
    expect(recognizeQuestion('How many records dated in Smarch 2024 are about billing?')).toBe(
      undefined,
    );
  });
});
