import type { EvalTask } from '../task/eval-task.js';
import { fillerSentence } from './filler-text.js';
import { type GeneratorOptions, taskId, taskSeed } from './generator-options.js';
import { type SeededRandom, seededRandom } from './seeded-random.js';

const KEY_WORDS = [
  'falcon',
  'orchid',
  'glacier',
  'lantern',
  'harbor',
  'meteor',
  'saffron',
  'walnut',
  'cobra',
  'violet',
  'tundra',
  'beacon',
  'quartz',
  'thistle',
  'mango',
  'raven',
  'sequoia',
  'pebble',
  'comet',
  'juniper',
];
/** Lines that look like needles but name other keys, so matching the format alone is not enough. */
const DISTRACTORS = 4;

export interface SniahOptions extends GeneratorOptions {
  /** Needles the question asks for: 1 is classic S-NIAH, more asks for a set. @default 1 */
  needles?: number;
}

/**
 * S-NIAH: filler lines with needle lines `The secret code for <key> is <digits>.` at seeded
 * depths, plus look-alike lines for other keys. One needle: the answer is the code
 * (normalised exact); several: the codes, one per line (set F1).
 *
 * @example
 * const [task] = generateSniah({ size: 128_000, seed: 7 });
 */
export function generateSniah({
  size,
  seed = 1,
  count = 1,
  needles = 1,
}: SniahOptions): EvalTask[] {
  return Array.from({ length: count }, (_, index) => {
    const random = seededRandom(taskSeed({ seed, size, index }));
    const keys = random
      .shuffle(KEY_WORDS)
      .slice(0, needles + DISTRACTORS)
      .map((word) => `${word}-${String(random.int(10, 99))}`);
    const codes = keys.map(() => String(random.int(1_000_000, 9_999_999)));
    const planted = keys.map(
      (key, position) => `The secret code for ${key} is ${codes[position]}.`,
    );
    const asked = keys.slice(0, needles);
    const context = plant(random, { size, planted });
    const single = needles === 1;
    return {
      id: taskId({ benchmark: single ? 'sniah' : `sniah${needles}`, size, seed, index }),
      query: single
        ? `What is the secret code for ${asked[0]}? Answer with the code only.`
        : `List the secret codes for ${asked.join(', ')}. Write one code per line and nothing else.`,
      context,
      answer: codes.slice(0, needles).join('\n'),
      scorer: single ? { kind: 'normalized_exact' } : { kind: 'set_f1', unorderedPairs: false },
      meta: {
        benchmark: 'sniah',
        size,
        contextChars: context.length,
        needles,
        keys: asked,
        needlePattern: single
          ? `secret code for ${asked[0]} is (\\d+)`
          : 'secret code for [a-z]+-\\d+ is (\\d+)',
      },
    } satisfies EvalTask;
  });
}

/** Filler lines until `size` is reached, with the planted lines inserted at seeded line positions. */
function plant(
  random: SeededRandom,
  { size, planted }: { size: number; planted: readonly string[] },
): string {
  const plantedChars = planted.reduce((sum, line) => sum + line.length + 1, 0);
  const lines: string[] = [];
  let length = plantedChars;
  while (length <= size) {
    const line = fillerSentence(random);
    lines.push(line);
    length += line.length + 1;
  }
  const positions = planted.map(() => random.int(0, lines.length));
  // Insert from the back so earlier positions stay valid.
  const order = positions
    .map((position, index) => ({ position, index }))
    .sort((a, b) => b.position - a.position);
  for (const { position, index } of order) lines.splice(position, 0, planted[index] as string);
  return lines.join('\n');
}
