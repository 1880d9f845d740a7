import { fromCodeUnits } from './code-units.js';

const TAB = 0x09;
const LF = 0x0a;
const SPACE = 0x20;

/**
 * Removes leading and trailing blank lines and the indentation every non-blank line shares,
 * so an indented block keeps its relative structure. Lines end in LF afterwards (CRLF and CR
 * are read as line breaks) and lose their trailing whitespace.
 *
 * Time and memory are linear in the body, and nothing spreads one argument per line, so a
 * block of any number of lines works. Ordinary code (no line ending in whitespace) takes one
 * scan and one copy, with no string per line; anything else goes line by line.
 *
 * @example
 * dedentBlock('\n    if (x) {\n      print(x);\n    }\n'); // 'if (x) {\n  print(x);\n}'
 */
export function dedentBlock(body: string): string {
  const text = body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body;
  return dedentPlainLines(text) ?? dedentEachLine(text.split('\n'));
}

/**
 * The fast path, for text whose every line is empty or ends in a non-whitespace character:
 * blank lines are then exactly the empty ones, and no line has anything to trim. Returns null
 * for any other text.
 */
function dedentPlainLines(text: string): string | null {
  let firstStart = -1;
  let lastEnd = -1;
  let common = Number.POSITIVE_INFINITY;
  let start = 0;
  // One loop over code units: an indexOf call per line costs more than it saves on short lines.
  for (let end = 0; end <= text.length; end++) {
    if (end < text.length && text.charCodeAt(end) !== LF) continue;
    if (end > start) {
      // A line ending in a non-whitespace character is not blank and has nothing to trim.
      if (isWhitespace(text, end - 1)) return null;
      if (firstStart === -1) firstStart = start;
      lastEnd = end;
      common = Math.min(common, skipIndent(text, start, end) - start);
    }
    start = end + 1;
  }
  if (firstStart === -1) return '';
  return common === 0
    ? text.slice(firstStart, lastEnd)
    : unindent(text, { firstStart, lastEnd, common });
}

/**
 * Copies `[firstStart, lastEnd)` without the first `common` code units of each non-empty line
 * (spaces and tabs, by the caller's scan): one pass, no string per line.
 */
function unindent(
  text: string,
  { firstStart, lastEnd, common }: { firstStart: number; lastEnd: number; common: number },
): string {
  const codes = new Uint16Array(lastEnd - firstStart);
  let written = 0;
  let toSkip = common;
  for (let index = firstStart; index < lastEnd; index++) {
    const code = text.charCodeAt(index);
    if (toSkip > 0 && code !== LF) {
      toSkip--;
      continue;
    }
    codes[written++] = code;
    if (code === LF) toSkip = common;
  }
  return fromCodeUnits(codes.subarray(0, written));
}

/** The general path: any mix of blank lines and trailing whitespace. */
function dedentEachLine(lines: readonly string[]): string {
  let first = 0;
  let end = lines.length;
  while (first < end && isBlank(lines[first])) first++;
  while (end > first && isBlank(lines[end - 1])) end--;
  const kept = lines.slice(first, end);
  const common = commonIndent(kept);
  return kept.map((line) => line.slice(common).trimEnd()).join('\n');
}

/** Blank as `String.prototype.trim` sees it: any Unicode whitespace, not only spaces and tabs. */
function isBlank(line: string | undefined): boolean {
  return (line ?? '').trim() === '';
}

/** Whether the code unit at `index` is one `trim` removes (the same set as a regex `\s`). */
function isWhitespace(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  if (code < 0x80) return code === SPACE || (code >= TAB && code <= 0x0d);
  return /\s/.test(text.charAt(index));
}

/** The smallest run of leading spaces and tabs among the non-blank lines; 0 when there are none. */
function commonIndent(lines: readonly string[]): number {
  let common = Number.POSITIVE_INFINITY;
  for (const line of lines) {
    const indent = skipIndent(line, 0, line.length);
    // Only a line that would lower the minimum needs the (allocating) blank test.
    if (indent >= common || isBlank(line)) continue;
    common = indent;
    if (common === 0) break;
  }
  return common === Number.POSITIVE_INFINITY ? 0 : common;
}

/** The index of the first character in `[from, end)` that is not a space or a tab, or `end`. */
function skipIndent(text: string, from: number, end: number): number {
  let index = from;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code !== SPACE && code !== TAB) break;
    index++;
  }
  return index;
}
