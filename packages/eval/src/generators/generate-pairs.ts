import type { EvalTask } from '../task/eval-task.js';
import { type GeneratorOptions, taskId, taskSeed } from './generator-options.js';
import { seededRandom } from './seeded-random.js';
import {
  makeRecord,
  RARE_LABELS,
  RECORD_LABELS,
  recordLine,
  type SupportRecord,
  userId,
} from './support-records.js';

const ALL_LABELS = { ...RECORD_LABELS, ...RARE_LABELS };

/**
 * OOLONG-Pairs-style: support records from many users; the question asks for every pair of users
 * who both have a record about a rare label. A few users (3–6) qualify; a few others carry the
 * other rare label as a distractor. The answer is the set of pairs `uA,uB`, one per line, scored
 * with set F1 over unordered pairs.
 *
 * @example
 * const [task] = generatePairs({ size: 32_000 });
 */
export function generatePairs({ size, seed = 1, count = 1 }: GeneratorOptions): EvalTask[] {
  const common = Object.keys(RECORD_LABELS);
  return Array.from({ length: count }, (_, index) => {
    const random = seededRandom(taskSeed({ seed, size, index }));
    const userCount = Math.max(12, Math.min(400, Math.round(size / 1_500)));
    const [target, distractor] = random.shuffle(Object.keys(RARE_LABELS)) as [string, string];
    const shuffledUsers = random.shuffle(
      Array.from({ length: userCount }, (_, user) => userId(user + 1)),
    );
    const qualifying = shuffledUsers.slice(0, random.int(3, 6)).sort();
    const decoys = shuffledUsers.slice(6, 6 + random.int(2, 4));
    // Rare records first (so even the smallest context holds them), then common ones; shuffled after.
    const planned: { user: string; label: string }[] = [
      ...qualifying.map((user) => ({ user, label: target })),
      ...decoys.map((user) => ({ user, label: distractor })),
    ];
    const records: SupportRecord[] = [];
    let length = 0;
    const add = (user: string, label: string) => {
      const record = makeRecord(random, { id: 0, user, label, labels: ALL_LABELS });
      records.push(record);
      length += recordLine(record).length + 1;
    };
    for (const { user, label } of planned) add(user, label);
    while (length <= size) {
      add(random.pick(shuffledUsers), random.pick(common));
    }
    const ordered = random.shuffle(records).map((record, id) => ({ ...record, id }));
    const context = ordered.map(recordLine).join('\n');
    const pairs: string[] = [];
    for (const [position, first] of qualifying.entries()) {
      for (const second of qualifying.slice(position + 1)) pairs.push(`${first},${second}`);
    }
    return {
      id: taskId({ benchmark: 'pairs', size, seed, index }),
      query:
        `List every pair of users who both have at least one record about ${target}. ` +
        'Write one pair per line as userA,userB (for example u001,u002) and nothing else.\n' +
        `Each line is one record: id | date | user | message. Labels: ${Object.keys(ALL_LABELS).join(', ')}.`,
      context,
      answer: pairs.join('\n'),
      scorer: { kind: 'set_f1', unorderedPairs: true },
      meta: {
        benchmark: 'pairs',
        size,
        contextChars: context.length,
        records: ordered.length,
        label: target,
        qualifyingUsers: qualifying,
      },
    } satisfies EvalTask;
  });
}
