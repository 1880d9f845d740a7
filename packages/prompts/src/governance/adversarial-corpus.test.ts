import { describe, expect, it } from 'vitest';
import { validateLayerUpdate } from '../layered/validate-layer-update.js';
import {
  ADVERSARIAL,
  ORDINARY_TEXTS,
  SPLIT_DEFINITIONS,
} from './__fixtures__/adversarial-corpus.js';

/** Techniques every text of which must be refused: the structural checks cover them whole. */
const FULLY_COVERED = [
  'tag characters after a harmless sentence',
  'other invisible carriers',
  'small-capital look-alikes',
  'other look-alikes',
  'HTML and Markdown structure forging a layer',
  'HTML character references',
  'encodings',
];

function refused(text: string): boolean {
  return !validateLayerUpdate(9, text).ok;
}

function splitRefused([first, second]: readonly [string, string]): boolean {
  return (
    !validateLayerUpdate(6, first).ok ||
    !validateLayerUpdate(7, second, { layers: { 6: first } }).ok
  );
}

describe('adversarial override corpus', () => {
  for (const group of FULLY_COVERED) {
    it(`refuses every text of the technique: ${group}`, () => {
      for (const text of ADVERSARIAL[group] ?? []) expect(refused(text), text).toBe(true);
    });
  }

  it('refuses every definition split across two layers', () => {
    for (const pair of SPLIT_DEFINITIONS) expect(splitRefused(pair), pair.join(' | ')).toBe(true);
  });

  it('refuses 66 of the 79 attacks, the rate the README states', () => {
    const singles = Object.values(ADVERSARIAL).flat();
    const total = singles.length + SPLIT_DEFINITIONS.length;
    const count = singles.filter(refused).length + SPLIT_DEFINITIONS.filter(splitRefused).length;
    expect({ count, total }).toEqual({ count: 66, total: 79 });
  });

  it('accepts every ordinary text (no false positives on the corpus of 60)', () => {
    expect(ORDINARY_TEXTS).toHaveLength(60);
    for (const text of ORDINARY_TEXTS)
      expect(validateLayerUpdate(8, text), text).toEqual({ ok: true });
  });
});
