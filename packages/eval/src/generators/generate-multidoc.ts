import type { EvalTask } from '../task/eval-task.js';
import { cityName, companyName, personName, uniqueNames } from './entity-names.js';
import { fillerSentence } from './filler-text.js';
import { type GeneratorOptions, taskId, taskSeed } from './generator-options.js';
import { type SeededRandom, seededRandom } from './seeded-random.js';

/** Average characters per document; the document count follows from the size. */
const DOCUMENT_CHARS = 900;
const MIN_CHAINS = 4;

export interface MultidocOptions extends GeneratorOptions {
  /** Documents the evidence spans: 2 (city of the company) or 3 (mayor of that city); seeded when absent. */
  hops?: 2 | 3;
}

interface Chain {
  founder: string;
  company: string;
  city: string;
  mayor: string;
}

/**
 * BrowseComp-Plus-style multi-hop retrieval: the context is an array of documents about invented
 * people, companies and cities. The question names a founder; its answer needs the founder's
 * document (which company), that company's document (which city) and, for 3 hops, the city's
 * document (which mayor). Every other document has the same shape with other entities, and
 * person documents name a birth city as a distractor. Normalised exact scoring.
 *
 * @example
 * const [task] = generateMultidoc({ size: 256_000, hops: 3 });
 */
export function generateMultidoc({ size, seed = 1, count = 1, hops }: MultidocOptions): EvalTask[] {
  return Array.from({ length: count }, (_, index) => {
    const random = seededRandom(taskSeed({ seed, size, index }));
    const chainCount = Math.max(MIN_CHAINS, Math.round(size / (3 * DOCUMENT_CHARS)));
    const people = uniqueNames(random, { count: chainCount * 2, make: personName });
    const companies = uniqueNames(random, { count: chainCount, make: companyName });
    const cities = uniqueNames(random, { count: chainCount, make: cityName });
    const chains: Chain[] = companies.map((company, position) => ({
      founder: people[position] as string,
      mayor: people[chainCount + position] as string,
      company,
      city: cities[position] as string,
    }));
    const padTo = Math.max(0, Math.floor(size / (3 * chainCount)) - 120);
    const documents = random.shuffle(
      chains.flatMap((chain) => [
        personDocument(random, { chain, cities, padTo }),
        companyDocument(random, { chain, padTo }),
        cityDocument(random, { chain, padTo }),
      ]),
    );
    const numbered = documents.map((text, position) => `Document ${position + 1}\n${text}`);
    const asked = random.pick(chains);
    const depth = hops ?? random.pick<2 | 3>([2, 3]);
    const contextChars = numbered.reduce((sum, text) => sum + text.length, 0);
    return {
      id: taskId({ benchmark: 'multidoc', size, seed, index }),
      query:
        depth === 2
          ? `In which city is the company founded by ${asked.founder} headquartered? Answer with the city name only.`
          : `Who is the mayor of the city where the company founded by ${asked.founder} is headquartered? Answer with the full name only.`,
      context: numbered,
      answer: depth === 2 ? asked.city : asked.mayor,
      scorer: { kind: 'normalized_exact' },
      meta: {
        benchmark: 'multidoc',
        size,
        contextChars,
        documents: numbered.length,
        hops: depth,
        founder: asked.founder,
      },
    } satisfies EvalTask;
  });
}

function pad(random: SeededRandom, { text, padTo }: { text: string; padTo: number }): string {
  const sentences = [text];
  let length = text.length;
  while (length < padTo) {
    const sentence = fillerSentence(random);
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return sentences.join(' ');
}

function personDocument(
  random: SeededRandom,
  { chain, cities, padTo }: { chain: Chain; cities: readonly string[]; padTo: number },
): string {
  const born = random.pick(cities);
  const year = random.int(1950, 2012);
  return `Profile: ${chain.founder}\n${pad(random, {
    text: `${chain.founder} was born in ${born}. In ${year}, ${chain.founder} founded ${chain.company}.`,
    padTo,
  })}`;
}

function companyDocument(
  random: SeededRandom,
  { chain, padTo }: { chain: Chain; padTo: number },
): string {
  const staff = random.int(20, 90_000);
  return `Company: ${chain.company}\n${pad(random, {
    text: `${chain.company} employs about ${staff} people. Its headquarters are in ${chain.city}.`,
    padTo,
  })}`;
}

function cityDocument(
  random: SeededRandom,
  { chain, padTo }: { chain: Chain; padTo: number },
): string {
  const population = random.int(5_000, 3_000_000);
  return `City: ${chain.city}\n${pad(random, {
    text: `${chain.city} has a population of ${population}. The current mayor of ${chain.city} is ${chain.mayor}.`,
    padTo,
  })}`;
}
