import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePairs } from './generate-pairs.js';
import { RARE_LABELS } from './support-records.js';

/** Users with a record carrying a phrase of the asked label, paired every way. */
function pairsFromText(context: string, query: string): Set<string> {
  const label = /both have at least one record about (\w+)\./.exec(query)?.[1] as string;
  const phrases = RARE_LABELS[label] ?? [];
  const users = new Set<string>();
  for (const line of context.split('\n')) {
    const [, , user, message] = line.split(' | ');
    if (phrases.some((phrase) => message?.includes(phrase))) users.add(user as string);
  }
  const sorted = [...users].sort();
  return new Set(
    sorted.flatMap((first, index) => sorted.slice(index + 1).map((second) => `${first},${second}`)),
  );
}

describe('generatePairs', () => {
  it('is deterministic per seed', () => {
    expect(generatePairs({ size: 12_000, seed: 4 })).toEqual(
      generatePairs({ size: 12_000, seed: 4 }),
    );
    expect(generatePairs({ size: 12_000, seed: 5 })[0]?.answer).not.toEqual(
      generatePairs({ size: 12_000, seed: 4 })[0]?.answer,
    );
  });

  it('lists exactly the pairs an independent scan finds, 3 to 15 of them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000, max: 40_000 }), fc.nat(), (size, seed) => {
        const [task] = generatePairs({ size, seed });
        if (task === undefined) throw new Error('no task');
        const expected = pairsFromText(String(task.context), task.query);
        expect(new Set(task.answer.split('\n'))).toEqual(expected);
        expect(expected.size).toBeGreaterThanOrEqual(3);
        expect(expected.size).toBeLessThanOrEqual(15);
      }),
      { numRuns: 25 },
    );
  });
});
