import type { SeededRandom } from './seeded-random.js';

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'tas',
  'vo',
  'zel',
  'dar',
  'fin',
  'gor',
  'hal',
  'ish',
  'jun',
  'nor',
  'pel',
  'quin',
  'sar',
  'tor',
  'ul',
  'wex',
];
const COMPANY_WORDS = [
  'Northwind',
  'Bluefield',
  'Ironbark',
  'Silverline',
  'Redcliff',
  'Greenhollow',
  'Stonegate',
  'Brightwater',
  'Oakridge',
  'Clearpath',
];
const COMPANY_KINDS = [
  'Labs',
  'Systems',
  'Foods',
  'Logistics',
  'Textiles',
  'Robotics',
  'Pharma',
  'Studios',
];
const CITY_ENDINGS = ['ford', 'ville', 'burg', 'haven', 'mouth', 'stead'];

function word(random: SeededRandom, parts: number): string {
  let text = '';
  for (let index = 0; index < parts; index += 1) text += random.pick(SYLLABLES);
  return `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
}

/**
 * Draws `count` distinct names from `make`. Invented names keep facts out of any model's
 * training data, so answers must come from the documents.
 */
export function uniqueNames(
  random: SeededRandom,
  { count, make }: { count: number; make: (random: SeededRandom) => string },
): string[] {
  const names = new Set<string>();
  let attempts = 0;
  while (names.size < count) {
    attempts += 1;
    const name = make(random);
    // After many collisions, a numeric suffix keeps generation finite for huge contexts.
    names.add(attempts > count * 20 ? `${name} ${names.size}` : name);
  }
  return [...names];
}

/** `Kalomi Rentas` */
export const personName = (random: SeededRandom): string => `${word(random, 2)} ${word(random, 3)}`;
/** `Ironbark Kaloren Labs` */
export const companyName = (random: SeededRandom): string =>
  `${random.pick(COMPANY_WORDS)} ${word(random, 2)} ${random.pick(COMPANY_KINDS)}`;
/** `Zeltasford` */
export const cityName = (random: SeededRandom): string =>
  `${word(random, 2)}${random.pick(CITY_ENDINGS)}`;
