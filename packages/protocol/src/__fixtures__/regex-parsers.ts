/**
 * The regex-based parsers as they were before the linear rewrite, kept verbatim as the oracle the
 * rewrite is tested against. They backtrack (quadratic on unclosed fences, a crash on huge blocks):
 * feed them only small inputs.
 */
import type { FinalMarker } from '../find-final-answer.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function regexCodeFencePattern(languages: readonly string[] = ['repl']): RegExp {
  const tags = [...new Set(['repl', ...languages])].map(escapeRegExp).join('|');
  return new RegExp(`\`\`\`(?:${tags})[^\\S\\n]*\\r?\\n([\\s\\S]*?)\\r?\\n\`\`\``, 'g');
}

export function regexDedentBlock(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  while (lines.length > 0 && (lines[0] ?? '').trim() === '') lines.shift();
  while (lines.length > 0 && (lines[lines.length - 1] ?? '').trim() === '') lines.pop();
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(common).trimEnd()).join('\n');
}

export function regexFindCodeBlocks(
  text: string,
  options: { languages?: readonly string[] } = {},
): string[] {
  const pattern = regexCodeFencePattern(options.languages);
  return [...text.matchAll(pattern)].map((match) => regexDedentBlock(match[1] ?? ''));
}

const ANY_FENCE = /```[^\n]*\n[\s\S]*?\n```/g;
const FINAL_VAR_PATTERN = /^[ \t]*FINAL_VAR\(([^)\n]*)\)/m;
const FINAL_START = /^[ \t]*FINAL\(/m;
const LINE_END = /[ \t]*(?:\n|$)/y;

function withoutFences(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(ANY_FENCE, (fence) => fence.replace(/[^\n]/g, ' '));
}

function stripQuotes(name: string): string {
  let result = name.trim();
  for (const quote of ['"', "'"]) {
    if (result.length >= 2 && result.startsWith(quote) && result.endsWith(quote)) {
      result = result.slice(1, -1);
    }
  }
  return result;
}

function finalContent(rest: string): string | null {
  const lineEnds: { index: number; depth: number }[] = [];
  let depth = 1;
  for (let index = 0; index < rest.length; index++) {
    const char = rest[index];
    if (char === '(') depth++;
    else if (char === ')') {
      depth--;
      LINE_END.lastIndex = index + 1;
      if (LINE_END.test(rest)) {
        if (depth === 0) return rest.slice(0, index).trim();
        lineEnds.push({ index, depth });
      }
    }
  }
  return unbalancedContent(rest, lineEnds);
}

function unbalancedContent(rest: string, lineEnds: readonly { index: number }[]): string | null {
  const nextFinal = rest.search(/\n[ \t]*FINAL\(/);
  const limit = nextFinal === -1 ? rest.length : nextFinal;
  const before = lineEnds.filter(({ index }) => index < limit);
  const chosen = before.at(-1) ?? lineEnds.at(-1);
  return chosen === undefined ? null : rest.slice(0, chosen.index).trim();
}

export function regexParseFinalMarker(text: string): FinalMarker | null {
  const visible = withoutFences(text);
  const finalVar = FINAL_VAR_PATTERN.exec(visible);
  if (finalVar) return { kind: 'final_var', varName: stripQuotes(finalVar[1] ?? '') };
  const start = FINAL_START.exec(visible);
  if (!start) return null;
  const value = finalContent(visible.slice(start.index + start[0].length));
  return value === null ? null : { kind: 'final', value };
}
