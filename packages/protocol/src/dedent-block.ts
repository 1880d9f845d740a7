/**
 * Removes leading and trailing blank lines and the indentation every non-blank line shares,
 * so an indented block keeps its relative structure. Lines end in LF afterwards (CRLF and CR
 * are read as line breaks) and lose their trailing whitespace.
 *
 * Time and memory are linear in the body: no call spreads one argument per line, so a block of
 * any number of lines works.
 *
 * @example
 * dedentBlock('\n    if (x) {\n      print(x);\n    }\n'); // 'if (x) {\n  print(x);\n}'
 */
export function dedentBlock(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
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

/** The smallest run of leading spaces and tabs among the non-blank lines; 0 when there are none. */
function commonIndent(lines: readonly string[]): number {
  let common = Number.POSITIVE_INFINITY;
  for (const line of lines) {
    const indent = indentOf(line);
    // Only a line that would lower the minimum needs the (allocating) blank test.
    if (indent >= common || isBlank(line)) continue;
    common = indent;
    if (common === 0) break;
  }
  return common === Number.POSITIVE_INFINITY ? 0 : common;
}

function indentOf(line: string): number {
  let index = 0;
  while (line[index] === ' ' || line[index] === '\t') index++;
  return index;
}
