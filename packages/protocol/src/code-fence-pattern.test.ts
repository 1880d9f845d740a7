import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { riskyLanguages, riskyText } from './__fixtures__/risky-text.js';
import { codeFencePattern } from './code-fence-pattern.js';
import { dedentBlock } from './dedent-block.js';
import { findCodeBlocks } from './find-code-blocks.js';

describe('codeFencePattern', () => {
  it('escapes tags so they match literally', () => {
    const pattern = codeFencePattern(['c++']);
    expect([...'```c++\nint x;\n```'.matchAll(pattern)].map((match) => match[1])).toEqual([
      'int x;',
    ]);
    expect([...'```cc\nx\n```'.matchAll(codeFencePattern(['c+']))]).toEqual([]);
  });

  it('finds the bodies findCodeBlocks returns, before dedent', () => {
    fc.assert(
      fc.property(riskyText, riskyLanguages, (text, languages) => {
        const bodies = [...text.matchAll(codeFencePattern(languages))].map((match) =>
          dedentBlock(match[1] ?? ''),
        );
        expect(bodies).toEqual(findCodeBlocks(text, { languages }));
      }),
    );
  });
});
