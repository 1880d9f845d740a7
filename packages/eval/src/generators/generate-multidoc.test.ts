import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateMultidoc } from './generate-multidoc.js';

type Facts = Map<string, [string, number]>;

/** `<prefix><name>\n…<before><value>.` → name → [value, document index]. */
function factsOf(
  documents: readonly string[],
  { prefix, value }: { prefix: string; value: (body: string, name: string) => string | undefined },
): Facts {
  const facts: Facts = new Map();
  for (const [index, document] of documents.entries()) {
    const [, title = '', ...body] = document.split('\n');
    if (!title.startsWith(prefix)) continue;
    const name = title.slice(prefix.length);
    const found = value(body.join('\n'), name);
    if (found !== undefined) facts.set(name, [found, index]);
  }
  return facts;
}

/** Builds the fact tables from the documents, then follows the question's chain. */
function answerFromDocuments(
  documents: readonly string[],
  query: string,
): { answer: string; evidence: number[] } {
  const founded = factsOf(documents, {
    prefix: 'Profile: ',
    value: (body, name) => body.split(`${name} founded `)[1]?.split('.')[0],
  });
  const headquarters = factsOf(documents, {
    prefix: 'Company: ',
    value: (body) => body.split('Its headquarters are in ')[1]?.split('.')[0],
  });
  const mayors = factsOf(documents, {
    prefix: 'City: ',
    value: (body, name) => body.split(`The current mayor of ${name} is `)[1]?.split('.')[0],
  });
  const founder = /founded by (.+?) (?:headquartered|is headquartered)\?/.exec(
    query,
  )?.[1] as string;
  const [company, first] = founded.get(founder) ?? ['', -1];
  const [city, second] = headquarters.get(company) ?? ['', -1];
  if (query.startsWith('In which city')) return { answer: city, evidence: [first, second] };
  const [mayor, third] = mayors.get(city) ?? ['', -1];
  return { answer: mayor, evidence: [first, second, third] };
}

describe('generateMultidoc', () => {
  it('is deterministic per seed', () => {
    expect(generateMultidoc({ size: 20_000, seed: 3 })).toEqual(
      generateMultidoc({ size: 20_000, seed: 3 }),
    );
  });

  it('has an answer reachable only by following 2 or 3 distinct documents', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2_000, max: 60_000 }),
        fc.nat(),
        fc.constantFrom<2 | 3>(2, 3),
        (size, seed, hops) => {
          const [task] = generateMultidoc({ size, seed, hops });
          const documents = task?.context as string[];
          const { answer, evidence } = answerFromDocuments(documents, task?.query ?? '');
          expect(answer).toBe(task?.answer);
          expect(new Set(evidence).size).toBe(hops);
          expect(evidence.every((index) => index >= 0)).toBe(true);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('spreads a large context over hundreds of documents of about the asked total size', () => {
    const [task] = generateMultidoc({ size: 400_000, seed: 1 });
    const documents = task?.context as string[];
    expect(documents.length).toBeGreaterThan(300);
    const total = documents.reduce((sum, document) => sum + document.length, 0);
    expect(total).toBeGreaterThan(400_000 * 0.8);
    expect(total).toBeLessThan(400_000 * 1.2);
  });
});
