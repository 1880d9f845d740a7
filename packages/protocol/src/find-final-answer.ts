/** A final-answer marker found in a response's text, before any variable is resolved. */
export type FinalMarker = { kind: 'final'; value: string } | { kind: 'final_var'; varName: string };

/** A resolved final answer. */
export type FinalAnswer =
  | { kind: 'final'; value: string }
  | { kind: 'final_var'; value: string; varName: string };

/** Reads a sandbox variable as a string; `undefined` when it does not exist. */
export type ResolveVariable = (name: string) => Promise<string | undefined>;

const ANY_FENCE = /```[^\n]*\n[\s\S]*?\n```/g;
const FINAL_VAR_PATTERN = /^[ \t]*FINAL_VAR\(([^)\n]*)\)/m;
const FINAL_START = /^[ \t]*FINAL\(/m;
/** Only spaces up to the end of the line (sticky: tested at one position). */
const LINE_END = /[ \t]*(?:\n|$)/y;

/** Blanks out fenced code so markers written as code are never read as text answers. */
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

/**
 * Finds where `FINAL(` content ends: the first `)` that closes a line with parentheses balanced;
 * failing that, the last line-closing `)` before the next `FINAL(` line (so two FINAL lines never
 * merge), or the last one at all.
 */
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

/** With unbalanced parentheses: the last line-closing `)` before the next `FINAL(` line, if any. */
function unbalancedContent(rest: string, lineEnds: readonly { index: number }[]): string | null {
  const nextFinal = rest.search(/\n[ \t]*FINAL\(/);
  const limit = nextFinal === -1 ? rest.length : nextFinal;
  const before = lineEnds.filter(({ index }) => index < limit);
  const chosen = before.at(-1) ?? lineEnds.at(-1);
  return chosen === undefined ? null : rest.slice(0, chosen.index).trim();
}

/**
 * Finds a final-answer marker in response text without resolving variables. `FINAL_VAR(name)` at
 * a line start wins wherever it is; otherwise the first `FINAL(...)` at a line start. Markers
 * inside fenced code are ignored (they run as code instead).
 */
export function parseFinalMarker(text: string): FinalMarker | null {
  const visible = withoutFences(text);
  const finalVar = FINAL_VAR_PATTERN.exec(visible);
  if (finalVar) return { kind: 'final_var', varName: stripQuotes(finalVar[1] ?? '') };
  const start = FINAL_START.exec(visible);
  if (!start) return null;
  const value = finalContent(visible.slice(start.index + start[0].length));
  return value === null ? null : { kind: 'final', value };
}

/**
 * Finds the final answer in a model response (rlmpaper rules). `FINAL_VAR` is resolved through
 * `resolveVariable`; with none, or when the variable is missing or empty, there is no answer and
 * no fallback to a `FINAL` elsewhere in the text.
 *
 * @example
 * await findFinalAnswer('Done.\nFINAL(42)'); // { kind: 'final', value: '42' }
 */
export async function findFinalAnswer(
  text: string,
  resolveVariable?: ResolveVariable,
): Promise<FinalAnswer | null> {
  const marker = parseFinalMarker(text);
  if (marker === null || marker.kind === 'final') return marker;
  if (resolveVariable === undefined || marker.varName === '') return null;
  const value = await resolveVariable(marker.varName);
  if (value === undefined || value === '') return null;
  return { kind: 'final_var', value, varName: marker.varName };
}
