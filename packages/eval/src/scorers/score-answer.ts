import { RlmError } from '@rlm/protocol';
import { gridsEqual, parseGrid } from '../arc/parse-grid.js';
import { normalizeAnswer } from './normalize-answer.js';
import type { ScorerSpec } from './scorer-spec.js';

/** A caller's scorer: returns a score in [0, 1] (values outside are clamped). */
export type ScoreFunction = (input: { answer: string; expected: string }) => number;

/** The outcome of scoring one answer. */
export interface Score {
  /** In [0, 1]. */
  score: number;
  /** Full marks (a score of 1); what accuracy and pass@k count. */
  passed: boolean;
}

export interface ScoreAnswerOptions {
  /** Functions for `{ kind: 'custom', name }` scorers, by name. */
  custom?: Readonly<Record<string, ScoreFunction>>;
}

/**
 * Scores an answer against the expected one. A missing answer (`null`) scores 0.
 *
 * @throws RlmError `eval.invalid_task` when a `custom` scorer names no registered function
 * @example
 * scoreAnswer({ kind: 'numeric', tolerance: 0, relative: false }, { answer: 'It is 42.', expected: '42' });
 */
export function scoreAnswer(
  spec: ScorerSpec,
  { answer, expected }: { answer: string | null; expected: string },
  { custom = {} }: ScoreAnswerOptions = {},
): Score {
  if (answer === null) return { score: 0, passed: false };
  const score = clamp(rawScore(spec, { answer, expected, custom }));
  return { score, passed: score >= 1 };
}

function rawScore(
  spec: ScorerSpec,
  {
    answer,
    expected,
    custom,
  }: { answer: string; expected: string; custom: Readonly<Record<string, ScoreFunction>> },
): number {
  switch (spec.kind) {
    case 'exact':
      return answer.trim() === expected.trim() ? 1 : 0;
    case 'normalized_exact':
      return normalizeAnswer(answer) === normalizeAnswer(expected) ? 1 : 0;
    case 'contains': {
      const wanted = normalizeAnswer(expected);
      return wanted !== '' && ` ${normalizeAnswer(answer)} `.includes(` ${wanted} `) ? 1 : 0;
    }
    case 'numeric':
      return numericScore(spec, { answer, expected });
    case 'grid_exact': {
      const got = parseGrid(answer);
      const want = parseGrid(expected);
      return got !== undefined && want !== undefined && gridsEqual(got, want) ? 1 : 0;
    }
    case 'set_f1':
      return setF1(toItems(answer, spec.unorderedPairs), toItems(expected, spec.unorderedPairs));
    case 'custom': {
      const scorer = Object.hasOwn(custom, spec.name) ? custom[spec.name] : undefined;
      if (scorer === undefined) {
        throw new RlmError({
          code: 'eval.invalid_task',
          message: `No custom scorer named "${spec.name}" was registered (pass it in runEval({ scorers }))`,
          details: {
            line: undefined,
            issues: [`scorer.name: unknown custom scorer "${spec.name}"`],
          },
        });
      }
      return scorer({ answer, expected });
    }
  }
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|-?\.\d+/gi;

/**
 * The number an answer states: the whole answer when it is a number, else the last number in it
 * ("There are 42 records." → 42). Thousands separators are ignored.
 */
export function parseNumber(text: string): number | undefined {
  const matches = text.match(NUMBER);
  const last = matches?.at(-1);
  if (last === undefined) return undefined;
  const value = Number(last.replaceAll(',', ''));
  return Number.isFinite(value) ? value : undefined;
}

function numericScore(
  { tolerance, relative }: { tolerance: number; relative: boolean },
  { answer, expected }: { answer: string; expected: string },
): number {
  const got = parseNumber(answer);
  const want = parseNumber(expected);
  if (got === undefined || want === undefined) return 0;
  const allowed = relative ? Math.abs(want) * tolerance : tolerance;
  // A tiny epsilon keeps 0.1 + 0.2 style float noise from failing an exact comparison.
  return Math.abs(got - want) <= allowed + 1e-9 * Math.max(1, Math.abs(want)) ? 1 : 0;
}

/** Items of a set answer: one per line (or `;`), normalised; pairs sorted when unordered. */
function toItems(text: string, unorderedPairs: boolean): Set<string> {
  const items = text
    .split(/[\n;]/)
    .map((item) => item.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, ''))
    .map((item) => (unorderedPairs ? pairKey(item) : normalizeAnswer(item)))
    .filter((item) => item !== '');
  return new Set(items);
}

function pairKey(item: string): string {
  const parts = normalizeAnswer(item)
    .split(' ')
    .filter((part) => part !== '');
  return parts.length === 2 ? parts.sort().join(',') : parts.join(' ');
}

/** F1 of two sets; two empty sets agree fully. */
export function setF1(predicted: ReadonlySet<string>, expected: ReadonlySet<string>): number {
  if (predicted.size === 0 && expected.size === 0) return 1;
  if (predicted.size === 0 || expected.size === 0) return 0;
  let hits = 0;
  for (const item of predicted) if (expected.has(item)) hits += 1;
  if (hits === 0) return 0;
  const precision = hits / predicted.size;
  const recall = hits / expected.size;
  return (2 * precision * recall) / (precision + recall);
}

function clamp(score: number): number {
  if (Number.isNaN(score)) return 0;
  return Math.min(1, Math.max(0, score));
}
