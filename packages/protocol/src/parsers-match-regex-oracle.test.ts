import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  regexDedentBlock,
  regexFindCodeBlocks,
  regexParseFinalMarker,
} from './__fixtures__/regex-parsers.js';
import { riskyLanguages, riskyText } from './__fixtures__/risky-text.js';
import { dedentBlock, findCodeBlocks, parseFinalMarker } from './index.js';

// The parsers were rewritten from backtracking regexes into linear scans; every answer must stay
// the same. The oracle is the regex version, so generated inputs stay small.
const RUNS = { numRuns: 3000 };

/** Text that often holds whole fences: prose, openings, bodies and closings, each a little off. */
const fencedText = fc
  .array(
    fc.tuple(
      riskyText,
      fc.constantFrom('```repl', '```js', '```', '```repl  ', '```javascript', '````repl', '```x'),
      fc.constantFrom('\n', '\r\n', ' \n', '\t\r\n', '\u00a0\n', '\v\n', '\u2028\n', '', 'x\n'),
      riskyText,
      fc.constantFrom('\n```', '\r\n```', '\n ```', '```', '\n``', ''),
    ),
    { maxLength: 4 },
  )
  .map((fences) => fences.map((parts) => parts.join('')).join(''));

/** Lines that often hold markers, each a little off: indent, marker, content, close, line break. */
const markerText = fc
  .array(
    fc.tuple(
      fc.constantFrom('', ' ', '\t', ' \t ', 'x ', '\u00a0'),
      fc.constantFrom('FINAL(', 'FINAL_VAR(', 'FINAL (', 'final(', '```repl\n', '```\n', ''),
      riskyText,
      fc.constantFrom(')', ') ', ')\t', ') x', '', '))', ')\r', '"', "')"),
      fc.constantFrom('\n', '\r\n', '\r', '\u2028', '\u2029', '\n```', ''),
    ),
    { maxLength: 5 },
  )
  .map((lines) => lines.map((parts) => parts.join('')).join(''));

const anyText = fc.oneof(riskyText, fencedText, markerText);

// Thousands of runs against a slow oracle: generous slack for a loaded machine, not a time bound.
describe('the linear parsers agree with the regex parsers they replaced', {
  timeout: 60_000,
}, () => {
  it('findCodeBlocks finds the same blocks, whatever the tags', () => {
    fc.assert(
      fc.property(anyText, riskyLanguages, (text, languages) => {
        const options = languages === undefined ? {} : { languages };
        expect(findCodeBlocks(text, options)).toEqual(regexFindCodeBlocks(text, options));
      }),
      RUNS,
    );
  });

  it('findCodeBlocks tries the tags in the same order, even tags holding line breaks', () => {
    // A config may hold any non-empty tag; one that ends in a line break can open a block whose
    // body starts earlier than another tag's at the same fence.
    const fence = fc
      .tuple(
        fc.constantFrom('```', '````', '```x', '```x\n', '```repl'),
        fc.constantFrom('', '\n', ' \n', '\r\n', 'x\n'),
        fc.constantFrom('', '\n', 'a', ' a\n', '```'),
        fc.constantFrom('\n```', '\r\n```', '```', ''),
      )
      .map((parts) => parts.join(''));
    const text = fc
      .array(fc.oneof(fence, fc.constantFrom('x', '\n', ' ', 'a', '`')), { maxLength: 5 })
      .map((parts) => parts.join(''));
    const languages = fc.shuffledSubarray(['x', 'x\n', 'x\n ', 'x ', ' ', '\n', '`', '``'], {
      minLength: 1,
      maxLength: 4,
    });
    fc.assert(
      fc.property(text, languages, (sample, tags) => {
        const options = { languages: tags };
        expect(findCodeBlocks(sample, options)).toEqual(regexFindCodeBlocks(sample, options));
      }),
      RUNS,
    );
  });

  it('dedentBlock gives the same code', () => {
    fc.assert(
      fc.property(anyText, (body) => {
        expect(dedentBlock(body)).toBe(regexDedentBlock(body));
      }),
      RUNS,
    );
  });

  it('dedentBlock gives the same code for indented lines, blank or not', () => {
    const line = fc
      .tuple(
        fc.constantFrom('', ' ', '  ', '\t', ' \t', '    '),
        fc.constantFrom('', 'x', 'a b', '(x)', '\u00a0x', 'x\u00a0', 'x ', ' ', '\v', '\u2028'),
      )
      .map(([indent, content]) => indent + content);
    const body = fc
      .tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom('\n', '\r\n', '\r'))
      .map(([lines, lineBreak]) => lines.join(lineBreak));
    fc.assert(
      fc.property(body, (text) => {
        expect(dedentBlock(text)).toBe(regexDedentBlock(text));
      }),
      RUNS,
    );
  });

  it('parseFinalMarker finds the same marker', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(parseFinalMarker(text)).toEqual(regexParseFinalMarker(text));
      }),
      RUNS,
    );
  });

  it('the generators reach the interesting cases', () => {
    // Guards the properties above against generators that drift into trivial inputs.
    const sample = fc.sample(anyText, { numRuns: 2000, seed: 1 });
    const withBlocks = sample.filter((text) => regexFindCodeBlocks(text).length > 0);
    const markers = sample.map((text) => regexParseFinalMarker(text));
    expect(withBlocks.length).toBeGreaterThan(200);
    expect(markers.filter((marker) => marker?.kind === 'final').length).toBeGreaterThan(60);
    expect(markers.filter((marker) => marker?.kind === 'final_var').length).toBeGreaterThan(30);
  });
});
