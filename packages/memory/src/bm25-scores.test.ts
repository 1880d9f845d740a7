import { describe, expect, it } from 'vitest';
import { bm25Scores, tokenize } from './bm25-scores.js';

describe('tokenize', () => {
  it('lowercases and splits on anything but letters and digits', () => {
    expect(tokenize('Deploy-key, v2 (Müller)!')).toEqual(['deploy', 'key', 'v2', 'müller']);
  });
});

describe('bm25Scores', () => {
  it('scores documents without query terms as 0', () => {
    expect(bm25Scores('zebra', ['a cat', 'a dog'])).toEqual([0, 0]);
    expect(bm25Scores('', ['a cat'])).toEqual([0]);
  });

  it('ranks a rare matching term above a common one', () => {
    // Same length, one term each: only the terms' document frequencies differ.
    const [rare, common] = bm25Scores('key deploy', ['key x', 'deploy x', 'deploy y', 'deploy z']);
    expect(rare).toBeGreaterThan(common ?? 0);
    expect(common).toBeGreaterThan(0);
  });

  it('prefers the shorter document for the same term frequency', () => {
    const [short, long] = bm25Scores('lint', [
      'lint failed',
      'lint failed on the third stage of the nightly build',
    ]);
    expect(short).toBeGreaterThan(long ?? 0);
  });
});
