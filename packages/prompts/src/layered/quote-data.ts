/**
 * Renders untrusted text as a quoted block: every line starts with `> `, so nothing inside can pass
 * for a heading, a layer separator or an instruction line of the prompt around it.
 */
export function quoteData(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => (line.length === 0 ? '>' : `> ${line}`))
    .join('\n');
}

/** A single-line, quoted rendering of a name or value (newlines and quotes escaped). */
export function inlineData(value: string): string {
  return JSON.stringify(value);
}
