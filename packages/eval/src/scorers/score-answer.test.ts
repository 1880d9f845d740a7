import { describe, expect, it } from 'vitest';
import { normalizeAnswer } from './normalize-answer.js';
import { parseNumber, scoreAnswer, setF1 } from './score-answer.js';
import { type ScorerSpecInput, scorerSpecSchema } from './scorer-spec.js';

const score = (spec: ScorerSpecInput, answer: string | null, expected: string) =>
  scoreAnswer(scorerSpecSchema.parse(spec), { answer, expected }).score;

describe('scoreAnswer', () => {
  it('scores a missing answer 0 with every scorer', () => {
    for (const kind of ['exact', 'normalized_exact', 'numeric', 'contains', 'set_f1'] as const) {
      expect(scoreAnswer(scorerSpecSchema.parse({ kind }), { answer: null, expected: '' })).toEqual(
        { score: 0, passed: false },
      );
    }
  });

  it('exact ignores only surrounding whitespace', () => {
    expect(score({ kind: 'exact' }, '  Paris\n', 'Paris')).toBe(1);
    expect(score({ kind: 'exact' }, 'paris', 'Paris')).toBe(0);
  });

  it('normalised exact ignores case, punctuation, articles and spacing', () => {
    expect(score({ kind: 'normalized_exact' }, 'The  Eiffel-Tower.', 'eiffel tower')).toBe(1);
    expect(score({ kind: 'normalized_exact' }, 'Eiffel Towers', 'eiffel tower')).toBe(0);
    expect(normalizeAnswer('Ünïcode São Paulo!')).toBe('ünïcode são paulo');
  });

  it('numeric reads the stated number and applies absolute or relative tolerance', () => {
    expect(score({ kind: 'numeric' }, 'There are 1,204 records.', '1204')).toBe(1);
    expect(score({ kind: 'numeric' }, '-3', '-3')).toBe(1);
    expect(score({ kind: 'numeric' }, '0.30000000000000004', '0.3')).toBe(1);
    expect(score({ kind: 'numeric' }, '42', '43')).toBe(0);
    expect(score({ kind: 'numeric', tolerance: 1 }, '42', '43')).toBe(1);
    expect(score({ kind: 'numeric', tolerance: 0.1, relative: true }, '95', '100')).toBe(1);
    expect(score({ kind: 'numeric', tolerance: 0.1, relative: true }, '89', '100')).toBe(0);
    expect(score({ kind: 'numeric' }, 'no idea', '4')).toBe(0);
    expect(parseNumber('In 2024 there were 17')).toBe(17);
    expect(parseNumber('1e3')).toBe(1000);
  });

  it('contains matches whole normalised words only', () => {
    expect(
      score({ kind: 'contains' }, 'I think the answer is Zeltasford, probably.', 'Zeltasford'),
    ).toBe(1);
    expect(score({ kind: 'contains' }, 'Zeltasfordhaven', 'Zeltasford')).toBe(0);
    expect(score({ kind: 'contains' }, 'anything', '')).toBe(0);
  });

  it('set F1 gives partial credit and treats unordered pairs as equal', () => {
    const spec = { kind: 'set_f1', unorderedPairs: true } as const;
    expect(score(spec, 'u002,u001\n(u003, u001)', 'u001,u002\nu001,u003')).toBe(1);
    expect(score(spec, 'u001,u002', 'u001,u002\nu001,u003')).toBeCloseTo(2 / 3);
    expect(score(spec, 'u001,u002\nu001,u002\nu009,u008', 'u001,u002')).toBeCloseTo(2 / 3);
    expect(score({ kind: 'set_f1' }, '- 123\n- 456', '456\n123')).toBe(1);
    expect(setF1(new Set(), new Set())).toBe(1);
    expect(setF1(new Set(['a']), new Set())).toBe(0);
  });

  it('passes only with full marks', () => {
    expect(
      scoreAnswer(scorerSpecSchema.parse({ kind: 'set_f1' }), { answer: 'a', expected: 'a\nb' })
        .passed,
    ).toBe(false);
  });

  it('runs registered custom scorers and clamps their result', () => {
    const spec = scorerSpecSchema.parse({ kind: 'custom', name: 'length' });
    const custom = { length: ({ answer }: { answer: string }) => answer.length / 2 };
    expect(scoreAnswer(spec, { answer: 'a', expected: '' }, { custom })).toEqual({
      score: 0.5,
      passed: false,
    });
    expect(scoreAnswer(spec, { answer: 'abcdef', expected: '' }, { custom })).toEqual({
      score: 1,
      passed: true,
    });
  });

  it('rejects a custom scorer nobody registered', () => {
    const spec = scorerSpecSchema.parse({ kind: 'custom', name: 'missing' });
    expect(() => scoreAnswer(spec, { answer: 'a', expected: 'a' })).toThrow(
      expect.objectContaining({ code: 'eval.invalid_task' }),
    );
  });
});
