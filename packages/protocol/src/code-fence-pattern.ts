import { DEFAULT_CODE_LANGUAGES } from './find-code-blocks.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The fences `findCodeBlocks` reads, as a global RegExp: the tag, optional spaces, a newline, a
 * lazy body (group 1), a newline and ```. It finds the same bodies (before dedent).
 *
 * @deprecated Only for small, trusted text such as highlighting your own examples. A backtracking
 * scan retries the rest of the text from every unclosed opening, so model output full of
 * unclosed fences takes quadratic time; `findCodeBlocks` reads the same fences in linear time.
 */
export function codeFencePattern(languages: readonly string[] = DEFAULT_CODE_LANGUAGES): RegExp {
  const tags = [...new Set(['repl', ...languages])].map(escapeRegExp).join('|');
  return new RegExp(`\`\`\`(?:${tags})[^\\S\\n]*\\r?\\n([\\s\\S]*?)\\r?\\n\`\`\``, 'g');
}
