import { seededRandom } from './seeded-random.js';

const FILLER_WORDS = [
  'river',
  'lantern',
  'copper',
  'meadow',
  'signal',
  'harbor',
  'quiet',
  'ledger',
  'orbit',
  'canvas',
  'thistle',
  'marble',
  'engine',
  'willow',
  'summit',
  'parcel',
  'velvet',
  'glacier',
  'pepper',
  'anchor',
];

/** A synthetic long-context retrieval task: one needle line hidden in filler text. */
export interface NeedleTask {
  /** The haystack, `chars` long, lines separated by `\n`. */
  context: string;
  /** The question to ask. */
  query: string;
  /** The expected answer (the magic number, as a string). */
  answer: string;
  /** The needle line as it appears in the context. */
  needle: string;
  /** The character offset where the needle line starts. */
  needleOffset: number;
}

export interface NeedleHaystackOptions {
  /** Length of the context in characters. */
  chars: number;
  /** @default 1 */
  seed?: number;
  /** Where the needle goes, as a fraction of the context (0 = start, 1 = end); seeded when absent. */
  depth?: number;
}

/**
 * Builds a needle-in-a-haystack task: filler lines of seeded words with one line
 * `The magic number is <n>.` at a seeded (or given) depth. Same options, same text.
 *
 * @example
 * const task = needleHaystack({ chars: 100_000, seed: 7 });
 */
export function needleHaystack({ chars, seed = 1, depth }: NeedleHaystackOptions): NeedleTask {
  const random = seededRandom(seed);
  const answer = String(random.int(100_000, 999_999));
  const needle = `The magic number is ${answer}.`;
  const lines: string[] = [];
  let length = 0;
  while (length < chars) {
    const words = Array.from({ length: random.int(6, 14) }, () => random.pick(FILLER_WORDS));
    const line = `${words.join(' ')}.`;
    lines.push(line);
    length += line.length + 1;
  }
  const filler = lines.join('\n');
  const fraction = depth ?? random.next();
  const room = Math.max(0, chars - needle.length - 1);
  const wanted = Math.min(room, Math.floor(fraction * room));
  // Put the needle on a line of its own, at the line boundary nearest the wanted offset.
  const boundary = filler.lastIndexOf('\n', wanted);
  const needleOffset = boundary < 0 ? 0 : boundary + 1;
  const before = filler.slice(0, needleOffset);
  const after = filler.slice(
    needleOffset,
    needleOffset + Math.max(0, chars - needleOffset - needle.length - 1),
  );
  const context = `${before}${needle}\n${after}`.slice(
    0,
    Math.max(chars, needleOffset + needle.length),
  );
  return {
    context,
    query: 'What is the magic number hidden in the context? Answer with the number only.',
    answer,
    needle,
    needleOffset,
  };
}
