import type { SeededRandom } from './seeded-random.js';

const WORDS = [
  'amber',
  'basin',
  'cedar',
  'delta',
  'ember',
  'fjord',
  'granite',
  'hollow',
  'inlet',
  'juniper',
  'kelp',
  'lagoon',
  'mesa',
  'nectar',
  'oxbow',
  'prairie',
  'quarry',
  'ridge',
  'spruce',
  'tundra',
  'umber',
  'valley',
  'wharf',
  'yarrow',
  'zephyr',
  'birch',
  'cobalt',
  'dune',
  'estuary',
  'flint',
];

/**
 * One line of seeded filler words ending in a full stop. The words never contain digits, so
 * numbers in a context can only come from the facts a generator plants.
 */
export function fillerSentence(random: SeededRandom): string {
  const count = random.int(6, 14);
  const words: string[] = [];
  for (let index = 0; index < count; index += 1)
    words.push(WORDS[random.int(0, WORDS.length - 1)] as string);
  const sentence = words.join(' ');
  return `${sentence[0]?.toUpperCase() ?? ''}${sentence.slice(1)}.`;
}
