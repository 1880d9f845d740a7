import type { EvalTask } from '../task/eval-task.js';
import { type GeneratorOptions, taskId, taskSeed } from './generator-options.js';
import { seededRandom } from './seeded-random.js';
import {
  makeRecord,
  RECORD_LABELS,
  recordLine,
  type SupportRecord,
  userId,
} from './support-records.js';

/** Month names as the `aggregate` questions write them. */
export const MONTHS = [
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

/** The question kinds `aggregate` asks, each needing every record. */
export type AggregateQuestion = 'count' | 'difference' | 'count_in_month';

/**
 * OOLONG-style aggregation: thousands of support records (one per line) whose label must be
 * inferred from the wording; the question counts or compares labels across all of them, and
 * the answer is an exact integer (numeric scorer, tolerance 0).
 *
 * @example
 * const tasks = generateAggregate({ size: 1_000_000, seed: 3, count: 2 });
 */
export function generateAggregate({ size, seed = 1, count = 1 }: GeneratorOptions): EvalTask[] {
  const labels = Object.keys(RECORD_LABELS);
  return Array.from({ length: count }, (_, index) => {
    const random = seededRandom(taskSeed({ seed, size, index }));
    const users = Math.max(10, Math.min(500, Math.round(size / 2_000)));
    const records: SupportRecord[] = [];
    const lines: string[] = [];
    let length = 0;
    while (length <= size) {
      const record = makeRecord(random, {
        id: records.length,
        user: userId(random.int(1, users)),
        label: random.pick(labels),
        labels: RECORD_LABELS,
      });
      const line = recordLine(record);
      records.push(record);
      lines.push(line);
      length += line.length + 1;
    }
    const context = lines.join('\n');
    const kind = random.pick<AggregateQuestion>(['count', 'difference', 'count_in_month']);
    const [first, second] = random.shuffle(labels) as [string, string];
    const month = random.int(1, 12);
    const countOf = (label: string, inMonth?: number) =>
      records.filter(
        (record) =>
          record.label === label &&
          (inMonth === undefined || Number(record.date.slice(5, 7)) === inMonth),
      ).length;
    const question = {
      count: {
        query: `How many of the records are about ${first}? Answer with the number only.`,
        answer: countOf(first),
      },
      difference: {
        query: `How many more records are about ${first} than about ${second}? Answer with one integer (negative if there are fewer).`,
        answer: countOf(first) - countOf(second),
      },
      count_in_month: {
        query: `How many records dated in ${MONTHS[month - 1]} 2024 are about ${first}? Answer with the number only.`,
        answer: countOf(first, month),
      },
    }[kind];
    return {
      id: taskId({ benchmark: 'aggregate', size, seed, index }),
      query: `${question.query}\nEach line is one record: id | date | user | message. Labels: ${labels.join(', ')}.`,
      context,
      answer: String(question.answer),
      scorer: { kind: 'numeric', tolerance: 0, relative: false },
      meta: {
        benchmark: 'aggregate',
        size,
        contextChars: context.length,
        records: records.length,
        question: kind,
        label: first,
        otherLabel: kind === 'difference' ? second : null,
        month: kind === 'count_in_month' ? month : null,
      },
    } satisfies EvalTask;
  });
}
