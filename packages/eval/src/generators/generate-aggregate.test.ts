import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateAggregate } from './generate-aggregate.js';
import { RECORD_LABELS } from './support-records.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Labels every record by phrase (each must match exactly one label) and answers the question from its wording. */
function answerFromText(context: string, query: string): number {
  const records = context.split('\n').map((line) => {
    const match = /^#(\d{5}) \| 2024-(\d{2})-\d{2} \| (u\d{3}) \| (.+)$/.exec(line);
    if (match === null) throw new Error(`bad record line: ${line}`);
    const labels = Object.entries(RECORD_LABELS)
      .filter(([, phrases]) => phrases.some((phrase) => (match[4] as string).includes(phrase)))
      .map(([label]) => label);
    expect(labels).toHaveLength(1);
    return { month: Number(match[2]), label: labels[0] as string };
  });
  const count = (label: string, month?: number) =>
    records.filter(
      (record) => record.label === label && (month === undefined || record.month === month),
    ).length;
  const difference = /How many more records are about (\w+) than about (\w+)\?/.exec(query);
  if (difference) return count(difference[1] as string) - count(difference[2] as string);
  const inMonth = /How many records dated in (\w+) 2024 are about (\w+)\?/.exec(query);
  if (inMonth) return count(inMonth[2] as string, MONTHS.indexOf(inMonth[1] as string) + 1);
  const plain = /How many of the records are about (\w+)\?/.exec(query);
  if (plain) return count(plain[1] as string);
  throw new Error(`unknown question: ${query}`);
}

describe('generateAggregate', () => {
  it('is deterministic per seed', () => {
    expect(generateAggregate({ size: 15_000, seed: 9, count: 3 })).toEqual(
      generateAggregate({ size: 15_000, seed: 9, count: 3 }),
    );
    expect(generateAggregate({ size: 15_000, seed: 10 })[0]?.context).not.toEqual(
      generateAggregate({ size: 15_000, seed: 9 })[0]?.context,
    );
  });

  it('has answers that an independent classification and count reproduce', () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 40_000 }), fc.nat(), (size, seed) => {
        const [task] = generateAggregate({ size, seed });
        if (task === undefined) throw new Error('no task');
        expect(String(task.context).length).toBeGreaterThanOrEqual(size);
        expect(Number(task.answer)).toBe(answerFromText(String(task.context), task.query));
      }),
      { numRuns: 30 },
    );
  });

  it('asks every question kind across seeds and never writes the label into a record', () => {
    const tasks = Array.from(
      { length: 12 },
      (_, seed) => generateAggregate({ size: 3_000, seed })[0],
    );
    expect(new Set(tasks.map((task) => task?.meta['question']))).toEqual(
      new Set(['count', 'difference', 'count_in_month']),
    );
    for (const task of tasks) {
      for (const label of Object.keys(RECORD_LABELS))
        expect(String(task?.context)).not.toContain(label);
    }
  });
});
