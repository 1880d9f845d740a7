import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateSniah } from './generate-sniah.js';

/** Recomputes the answer from the text alone: every needle-shaped line, then the asked keys. */
function answerFromText(context: string, query: string): string[] {
  const codes = new Map<string, string[]>();
  for (const line of context.split('\n')) {
    const match = /^The secret code for (\S+) is (\d+)\.$/.exec(line);
    if (match)
      codes.set(match[1] as string, [...(codes.get(match[1] as string) ?? []), match[2] as string]);
  }
  const asked = [...query.matchAll(/([a-z]+-\d{2})/g)].map((match) => match[1] as string);
  return asked.map((key) => {
    const found = codes.get(key) ?? [];
    expect(found).toHaveLength(1);
    return found[0] as string;
  });
}

describe('generateSniah', () => {
  it('gives the same tasks for the same seed and different ones for another seed', () => {
    const first = generateSniah({ size: 20_000, seed: 5, count: 2 });
    expect(generateSniah({ size: 20_000, seed: 5, count: 2 })).toEqual(first);
    expect(generateSniah({ size: 20_000, seed: 6, count: 2 })[0]?.context).not.toEqual(
      first[0]?.context,
    );
    expect(first[0]?.context).not.toEqual(first[1]?.context);
  });

  it('plants an answer that a line scan of the context recovers, at any size and seed', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 30_000 }),
        fc.nat(),
        fc.integer({ min: 1, max: 3 }),
        (size, seed, needles) => {
          const [task] = generateSniah({ size, seed, needles });
          if (task === undefined) throw new Error('no task');
          const context = String(task.context);
          expect(context.length).toBeGreaterThanOrEqual(size);
          expect(context.length).toBeLessThan(size + 200);
          expect(answerFromText(context, task.query).join('\n')).toBe(task.answer);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('adds look-alike lines for other keys so format matching alone is ambiguous', () => {
    const [task] = generateSniah({ size: 10_000, seed: 2 });
    const needleLines = String(task?.context)
      .split('\n')
      .filter((line) => line.startsWith('The secret code for'));
    expect(needleLines.length).toBeGreaterThan(1);
    expect(task?.scorer).toEqual({ kind: 'normalized_exact' });
  });

  it('asks for a set scored with F1 when there are several needles', () => {
    const [task] = generateSniah({ size: 10_000, seed: 2, needles: 3 });
    expect(task?.answer.split('\n')).toHaveLength(3);
    expect(task?.scorer).toEqual({ kind: 'set_f1', unorderedPairs: false });
    expect(task?.id).toBe('sniah3-10k-s2-0');
  });

  it('builds multi-million-character contexts with the needle still recoverable', () => {
    const [task] = generateSniah({ size: 2_000_000, seed: 11 });
    const context = String(task?.context);
    expect(context.length).toBeGreaterThanOrEqual(2_000_000);
    expect(answerFromText(context, task?.query ?? '').join('\n')).toBe(task?.answer);
  });
});
