import fc from 'fast-check';

/**
 * Fragments that decide how fences, markers and indentation are read: backticks, the `repl` tag,
 * every line terminator JavaScript knows (CR, LF, U+2028, U+2029), spaces and tabs (and other
 * whitespace that `\s` or `trim` see but `[ \t]` does not), parentheses, quotes and both markers.
 */
const FRAGMENTS = [
  '```',
  '```repl',
  '```repl\n',
  '```js',
  '```js\n',
  'repl',
  '\n```',
  '\r\n```',
  '`',
  '\n',
  '\r\n',
  '\r',
  '\u2028',
  '\u2029',
  ' ',
  '  ',
  '\t',
  '\u00a0',
  '\v',
  '(',
  ')',
  ') ',
  'FINAL(',
  'FINAL_VAR(',
  'FINAL()',
  '"',
  "'",
  'x',
  '42',
] as const;

/** Short text made of risky fragments and a little arbitrary text: small enough for the oracle. */
export const riskyText = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 40 })
  .map((parts) => parts.join(''));

/** Extra fence tags, including ones a config could hold but that stress the matcher. */
export const riskyLanguages = fc.option(
  fc.array(
    fc.constantFrom('js', 'javascript', 'j', 'repl', 'repl ', 'c++', 'a\nb', 'x', 'x\n', '`', ' ', ''),
    { maxLength: 3 },
  ),
  { nil: undefined },
);
