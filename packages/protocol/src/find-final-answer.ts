import { hideFencedCode } from './hide-fenced-code.js';

/** A final-answer marker found in a response's text, before any variable is resolved. */
export type FinalMarker = { kind: 'final'; value: string } | { kind: 'final_var'; varName: string };

/** A resolved final answer. */
export type FinalAnswer =
  | { kind: 'final'; value: string }
  | { kind: 'final_var'; value: string; varName: string };

/** Reads a sandbox variable as a string; `undefined` when it does not exist. */
export type ResolveVariable = (name: string) => Promise<string | undefined>;

const FINAL_VAR_OPEN = 'FINAL_VAR(';
const FINAL_OPEN = 'FINAL(';
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
const LINE_SEPARATOR = 0x2028;
const PARAGRAPH_SEPARATOR = 0x2029;

/**
 * Finds a final-answer marker in response text without resolving variables. `FINAL_VAR(name)` at
 * a line start wins wherever it is; otherwise the first `FINAL(...)` at a line start. Markers
 * inside fenced code are ignored (they run as code instead).
 *
 * Time is linear in the text: fences, markers, names and parentheses are each read in one
 * forward pass, and a marker's indentation is read back to its line start once.
 */
export function parseFinalMarker(text: string): FinalMarker | null {
  const visible = hideFencedCode(text.replace(/\r\n?/g, '\n'));
  const varName = finalVarName(visible);
  if (varName !== null) return { kind: 'final_var', varName: stripQuotes(varName) };
  const start = firstMarkerLine(visible, FINAL_OPEN);
  if (start === -1) return null;
  const value = finalContent(visible.slice(start));
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

/**
 * The raw name of the first `FINAL_VAR(name)` that starts a line and is closed by a `)` on that
 * line (a name never holds `)` or LF). Markers are found by searching for the marker itself, so
 * text without one costs a single native search.
 */
function finalVarName(text: string): string | null {
  let from = 0;
  for (;;) {
    const at = text.indexOf(FINAL_VAR_OPEN, from);
    if (at === -1) return null;
    const nameStart = at + FINAL_VAR_OPEN.length;
    from = nameStart;
    if (!startsLine(text, at)) continue;
    const nameEnd = indexOfNameEnd(text, nameStart);
    if (nameEnd === -1) return null;
    if (text.charCodeAt(nameEnd) === CLOSE_PAREN) return text.slice(nameStart, nameEnd);
    // Markers before this LF (on lines split by U+2028) would stop at the same LF.
    from = nameEnd;
  }
}

/** The index just after the first `marker` that starts a line (after spaces and tabs), or -1. */
function firstMarkerLine(text: string, marker: string): number {
  for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) {
    if (startsLine(text, at)) return at + marker.length;
  }
  return -1;
}

/**
 * Whether only spaces and tabs stand between `index` and the start of its line: the start of the
 * text or a position after a line terminator (LF, CR, U+2028, U+2029), as a multiline `^` sees it.
 */
function startsLine(text: string, index: number): boolean {
  const start = indentStart(text, index);
  if (start === 0) return true;
  const before = text.charCodeAt(start - 1);
  return (
    before === LF || before === CR || before === LINE_SEPARATOR || before === PARAGRAPH_SEPARATOR
  );
}

/** Where the run of spaces and tabs that ends at `index` begins. */
function indentStart(text: string, index: number): number {
  let start = index;
  while (start > 0 && isSpaceOrTab(text.charCodeAt(start - 1))) start--;
  return start;
}

/** The first `)` or LF at or after `from`, or -1. */
function indexOfNameEnd(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === CLOSE_PAREN || code === LF) return index;
  }
  return -1;
}

function isSpaceOrTab(code: number): boolean {
  return code === SPACE || code === TAB;
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

/** True when only spaces and tabs follow `index` up to an LF or the end of the text. */
function endsLine(text: string, index: number): boolean {
  let at = index;
  while (isSpaceOrTab(text.charCodeAt(at))) at++;
  return at === text.length || text.charCodeAt(at) === LF;
}

/**
 * Finds where `FINAL(` content ends: the first `)` that closes a line with parentheses balanced;
 * failing that, the last line-closing `)` before the next `FINAL(` line (so two FINAL lines never
 * merge), or the last one at all.
 */
function finalContent(rest: string): string | null {
  const lineEnds: number[] = [];
  let depth = 1;
  for (let index = 0; index < rest.length; index++) {
    const code = rest.charCodeAt(index);
    if (code === OPEN_PAREN) depth++;
    else if (code === CLOSE_PAREN) {
      depth--;
      if (endsLine(rest, index + 1)) {
        if (depth === 0) return rest.slice(0, index).trim();
        lineEnds.push(index);
      }
    }
  }
  return unbalancedContent(rest, lineEnds);
}

/** With unbalanced parentheses: the last line-closing `)` before the next `FINAL(` line, if any. */
function unbalancedContent(rest: string, lineEnds: readonly number[]): string | null {
  const limit = nextFinalLine(rest);
  let chosen = lineEnds.at(-1);
  for (let position = lineEnds.length - 1; position >= 0; position--) {
    const index = lineEnds[position] as number;
    if (index < limit) {
      chosen = index;
      break;
    }
  }
  return chosen === undefined ? null : rest.slice(0, chosen).trim();
}

/** The index of the first LF whose line starts with `FINAL(`, or the text's length. */
function nextFinalLine(text: string): number {
  for (let at = text.indexOf(FINAL_OPEN); at !== -1; at = text.indexOf(FINAL_OPEN, at + 1)) {
    const start = indentStart(text, at);
    if (start > 0 && text.charCodeAt(start - 1) === LF) return start - 1;
  }
  return text.length;
}
