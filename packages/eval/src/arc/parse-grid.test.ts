import { describe, expect, it } from 'vitest';
import { scoreAnswer } from '../scorers/score-answer.js';
import { parseGrid } from './parse-grid.js';

describe('parseGrid', () => {
  it.each<[string, string, number[][] | undefined]>([
    [
      'a JSON grid',
      '[[0,1],[2,3]]',
      [
        [0, 1],
        [2, 3],
      ],
    ],
    [
      'a JSON grid in prose, the last one',
      'Input [[9]] becomes:\n[[0, 1],\n [2, 3]].',
      [
        [0, 1],
        [2, 3],
      ],
    ],
    [
      'rows of digits',
      'The output:\n01\n23\n',
      [
        [0, 1],
        [2, 3],
      ],
    ],
    [
      'rows of spaced digits',
      '0 1\n2 3',
      [
        [0, 1],
        [2, 3],
      ],
    ],
    ['ragged rows', '012\n34', undefined],
    ['a colour above 9', '[[0,10]]', undefined],
    ['no grid', 'I do not know', undefined],
  ])('reads %s', (_name, text, grid) => {
    expect(parseGrid(text)).toEqual(grid);
  });
});

describe("scoreAnswer({ kind: 'grid_exact' })", () => {
  const expected = '[[1,2],[3,4]]';
  it('gives 1 to the expected grid in any form it reads, 0 to another grid or none', () => {
    const score = (answer: string | null) =>
      scoreAnswer({ kind: 'grid_exact' }, { answer, expected }).score;
    expect(score('[[1, 2], [3, 4]]')).toBe(1);
    expect(score('12\n34')).toBe(1);
    expect(score('[[1,2],[3,5]]')).toBe(0);
    expect(score('[[1,2]]')).toBe(0);
    expect(score('[[1,2,0],[3,4,0]]')).toBe(0);
    expect(score('no idea')).toBe(0);
    expect(score(null)).toBe(0);
  });
});
