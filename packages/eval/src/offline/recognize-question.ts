import type { JsonValue } from '@rlm/protocol';
import { MONTHS } from '../generators/generate-aggregate.js';

/** What a built-in benchmark question asks: the `meta` fields its reference solver reads. */
export type QuestionMeta = Record<string, JsonValue> & { benchmark: string };

const KEY = '[a-z]+-\\d+';
const LABEL = '[a-z]+';

/** The question templates of the generators, each read back into the task metadata it encodes. */
const RECOGNIZERS: readonly ((question: string) => QuestionMeta | undefined)[] = [
  (question) => {
    const key = new RegExp(`^What is the secret code for (${KEY})\\?`).exec(question)?.[1];
    return key === undefined ? undefined : { benchmark: 'sniah', keys: [key] };
  },
  (question) => {
    const list = new RegExp(`^List the secret codes for ((?:${KEY}, )*${KEY})\\.`).exec(
      question,
    )?.[1];
    return list === undefined ? undefined : { benchmark: 'sniah', keys: list.split(', ') };
  },
  (question) => {
    const label = new RegExp(`^How many of the records are about (${LABEL})\\?`).exec(
      question,
    )?.[1];
    return label === undefined ? undefined : aggregate({ label, otherLabel: null, month: null });
  },
  (question) => {
    const match = new RegExp(
      `^How many more records are about (${LABEL}) than about (${LABEL})\\?`,
    ).exec(question);
    if (match?.[1] === undefined || match[2] === undefined) return undefined;
    return aggregate({ label: match[1], otherLabel: match[2], month: null });
  },
  (question) => {
    const match = new RegExp(
      `^How many records dated in ([A-Z][a-z]+) 2024 are about (${LABEL})\\?`,
    ).exec(question);
    const month = MONTHS.indexOf(match?.[1] ?? '') + 1;
    if (match?.[2] === undefined || month === 0) return undefined;
    return aggregate({ label: match[2], otherLabel: null, month });
  },
  (question) => {
    const label = new RegExp(
      `^List every pair of users who both have at least one record about (${LABEL})\\.`,
    ).exec(question)?.[1];
    return label === undefined ? undefined : { benchmark: 'pairs', label };
  },
  (question) => {
    const founder = /^In which city is the company founded by ([^?]+) headquartered\?/.exec(
      question,
    )?.[1];
    return founder === undefined ? undefined : { benchmark: 'multidoc', founder, hops: 2 };
  },
  (question) => {
    const founder =
      /^Who is the mayor of the city where the company founded by ([^?]+) is headquartered\?/.exec(
        question,
      )?.[1];
    return founder === undefined ? undefined : { benchmark: 'multidoc', founder, hops: 3 };
  },
];

function aggregate(fields: {
  label: string;
  otherLabel: string | null;
  month: number | null;
}): QuestionMeta {
  return { benchmark: 'aggregate', ...fields };
}

/**
 * Reads a question written by one of the built-in generators back into the metadata its reference
 * solver needs, so `testkit:reference` can answer a benchmark question outside `rlm eval` (in
 * `rlm run`, where there is no task). `undefined` for any other question.
 *
 * @example
 * recognizeQuestion('What is the secret code for falcon-12? Answer with the code only.');
 * // { benchmark: 'sniah', keys: ['falcon-12'] }
 */
export function recognizeQuestion(question: string): QuestionMeta | undefined {
  const text = question.trim();
  for (const recognize of RECOGNIZERS) {
    const meta = recognize(text);
    if (meta !== undefined) return meta;
  }
  return undefined;
}
