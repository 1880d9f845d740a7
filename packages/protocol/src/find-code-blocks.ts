/** The fence tag the protocol runs by default. */
export const DEFAULT_CODE_LANGUAGES: readonly string[] = ['repl'];

export interface FindCodeBlocksOptions {
  /** Fence tags whose blocks are run. `repl` is always included; add e.g. `js` to opt in. */
  languages?: readonly string[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Builds the fence pattern: the tag, optional spaces, a newline, a lazy body, a newline and ```. */
export function codeFencePattern(languages: readonly string[] = DEFAULT_CODE_LANGUAGES): RegExp {
  const tags = [...new Set(['repl', ...languages])].map(escapeRegExp).join('|');
  return new RegExp(`\`\`\`(?:${tags})[^\\S\\n]*\\r?\\n([\\s\\S]*?)\\r?\\n\`\`\``, 'g');
}

/**
 * Removes leading and trailing blank lines and the indentation every non-blank line shares,
 * so an indented block keeps its relative structure.
 */
export function dedentBlock(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && (lines[0] ?? '').trim() === '') lines.shift();
  while (lines.length > 0 && (lines[lines.length - 1] ?? '').trim() === '') lines.pop();
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(common).trimEnd()).join('\n');
}

/**
 * Extracts the code of every fenced ```repl block in a model response, in order.
 *
 * A block opens with ```repl (optionally followed by spaces) and a newline, and ends at the first
 * newline followed by three backticks. An empty fence is no block; a fence holding one blank line
 * is one empty block.
 *
 * @example
 * findCodeBlocks('Look:\n```repl\nprint(context.length)\n```'); // ['print(context.length)']
 */
export function findCodeBlocks(text: string, options: FindCodeBlocksOptions = {}): string[] {
  const pattern = codeFencePattern(options.languages);
  return [...text.matchAll(pattern)].map((match) => dedentBlock(match[1] ?? ''));
}
