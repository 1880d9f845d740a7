import { RlmError } from '@rlm/protocol/core';
import type { CodePointOffsets } from './code-point-offsets.js';

/**
 * The context helpers' work on one payload string, as pure functions, for both REPLs. They run
 * on the host (in a scan worker that can be terminated when a pattern runs away) because V8 scans
 * text 100–300× faster than QuickJS or Python's `re` in WebAssembly. Offsets are UTF-16 indices,
 * the same as `context.slice()` in JavaScript; given `offsets`, they are code points instead
 * (Python's `str` indices), and chunk sizes count code points, so a chunk never splits a character.
 */

/** The largest `max` a helper accepts. */
export const MAX_HELPER_ITEMS = 100_000;

/** Limits every result is cut to, with a note saying how much was left out. */
export interface ResultCaps {
  /** Most items (matches, lines, chunks) returned. */
  maxItems: number;
  /** Most characters of text returned across all items. */
  maxChars: number;
}

/** Characters of a very long line shown around a match. */
const LINE_WINDOW = 500;

/** Where each line starts: index i holds the offset of line i + 1 (lines end at `\n`). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 0-based line holding `offset` (binary search over `starts`). */
function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Line `index` (0-based) without its `\n` or `\r\n` terminator. */
function lineText(text: string, starts: readonly number[], index: number): string {
  const start = starts[index] ?? text.length;
  const next = starts[index + 1];
  let end = next === undefined ? text.length : next - 1;
  if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
  return text.slice(start, end);
}

/**
 * A pattern that is nothing but literal text (see literal-pattern.ts): found with `indexOf`, which
 * never backtracks, so a scan of it takes time linear in the text and in how many matches it has.
 * It finds exactly what the regex of its source finds (every match left to right, none
 * overlapping, none empty, no capture groups).
 */
export interface LiteralPattern {
  readonly literal: string;
}

/** A helper's pattern as the scans take it: a global RegExp, or literal text. */
export type ScanPattern = RegExp | LiteralPattern;

/**
 * Called every so many matches of a literal pattern: a held scan stops there (by throwing) once
 * its budget is spent, since no watchdog runs over it (see held-scan.ts).
 */
export type Checkpoint = () => void;

/** Matches of a literal pattern between two checkpoints. */
const CHECK_EVERY = 256;

/** A global copy of `pattern` (matchAll semantics: every match, left to right). */
export function globalPattern(source: string, flags: string): RegExp {
  return new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
}

function omittedNote(shown: number, total: number, what: string): string | undefined {
  return shown < total
    ? `${total - shown} of ${total} ${what} not shown (result cap); narrow the pattern or raise max`
    : undefined;
}

/** One match of `find_all`. */
export interface FindAllMatch {
  match: string;
  /** Where the match starts: `context.slice(index)` (JavaScript), `context[index:]` (Python). */
  index: number;
  /** Capture groups in order; `null` for a group that did not take part. */
  groups: (string | null)[];
  /** Named groups, when the pattern has any. */
  named?: Record<string, string | null>;
}

/** What `find_all` returns. */
export interface FindAllResult {
  matches: FindAllMatch[];
  total: number;
  note?: string;
}

/** Every match with offset and groups: `[...text.matchAll(pattern)]`, capped. */
export function findAll(
  text: string,
  pattern: ScanPattern,
  caps: ResultCaps & { offsets?: CodePointOffsets; checkpoint?: Checkpoint },
): FindAllResult {
  const matches: FindAllMatch[] = [];
  let total = 0;
  let chars = 0;
  const every =
    pattern instanceof RegExp
      ? text.matchAll(pattern)
      : literalMatches(text, pattern.literal, caps.checkpoint);
  for (const found of every) {
    total += 1;
    const size = found[0].length + found.slice(1).reduce((n, g) => n + (g?.length ?? 0), 0);
    if (matches.length >= caps.maxItems || chars + size > caps.maxChars) continue;
    chars += size;
    const item: FindAllMatch = {
      match: found[0],
      index: caps.offsets === undefined ? found.index : caps.offsets.toCodePoints(found.index),
      groups: found.slice(1).map((group) => group ?? null),
    };
    if (found.groups !== undefined) {
      item.named = Object.fromEntries(
        Object.entries(found.groups).map(([name, value]) => [name, value ?? null]),
      );
    }
    matches.push(item);
  }
  const note = omittedNote(matches.length, total, 'matches');
  return note === undefined ? { matches, total } : { matches, total, note };
}

/** The matches of literal text as `matchAll` gives them (no capture groups). */
function* literalMatches(
  text: string,
  literal: string,
  checkpoint: Checkpoint | undefined,
): Generator<RegExpExecArray> {
  let found = 0;
  for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + literal.length)) {
    if (++found % CHECK_EVERY === 0) checkpoint?.();
    yield Object.assign([literal], { index: at, input: text }) as RegExpExecArray;
  }
}

/** How many matches `[...text.matchAll(pattern)]` would give, without building them. */
export function countMatches(text: string, pattern: ScanPattern, checkpoint?: Checkpoint): number {
  let total = 0;
  if (pattern instanceof RegExp) {
    for (const _ of text.matchAll(pattern)) total += 1;
    return total;
  }
  const { literal } = pattern;
  for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + literal.length)) {
    if (++total % CHECK_EVERY === 0) checkpoint?.();
  }
  return total;
}

/**
 * Where the next match of `pattern` starts, searching from `from` (past the text: none), or -1.
 * A RegExp's `lastIndex` is left as `exec` leaves it.
 */
function nextMatch(text: string, pattern: ScanPattern, from: number): number {
  if (!(pattern instanceof RegExp))
    return from > text.length ? -1 : text.indexOf(pattern.literal, from);
  pattern.lastIndex = from;
  return pattern.exec(text)?.index ?? -1;
}

/** One matching line of `grep`. */
export interface GrepLine {
  /** 1-based line number. */
  line: number;
  text: string;
  /** Lines before and after (up to `context` each). */
  before?: string[];
  after?: string[];
}

/** What `grep` returns. */
export interface GrepResult {
  matches: GrepLine[];
  /** Number of matching lines. */
  total: number;
  note?: string;
}

/**
 * Lines where the pattern has a match (a match belongs to the line where it starts), with
 * `context` lines around each. With the `m` flag, `^` and `$` match at line boundaries.
 */
export function grep(
  text: string,
  pattern: ScanPattern,
  options: ResultCaps & {
    context: number;
    starts: readonly number[];
    checkpoint?: Checkpoint;
  },
): GrepResult {
  const { starts, context, checkpoint } = options;
  const matches: GrepLine[] = [];
  let total = 0;
  let chars = 0;
  // One hit per line: each search continues from the next line's start.
  for (
    let index = nextMatch(text, pattern, 0), line = 0;
    index !== -1;
    index = nextMatch(text, pattern, starts[line + 1] ?? text.length + 1)
  ) {
    line = lineOf(starts, index);
    total += 1;
    if (total % CHECK_EVERY === 0) checkpoint?.();
    if (matches.length >= options.maxItems) continue;
    const entry = grepLine(text, starts, {
      line,
      column: index - (starts[line] ?? 0),
      context,
    });
    const size =
      entry.text.length + [...(entry.before ?? []), ...(entry.after ?? [])].join('').length;
    if (chars + size > options.maxChars) continue;
    chars += size;
    matches.push(entry);
  }
  const note = omittedNote(matches.length, total, 'matching lines');
  return note === undefined ? { matches, total } : { matches, total, note };
}

function grepLine(
  text: string,
  starts: readonly number[],
  { line, column, context }: { line: number; column: number; context: number },
): GrepLine {
  const entry: GrepLine = { line: line + 1, text: clipLine(lineText(text, starts, line), column) };
  if (context > 0) {
    const first = Math.max(0, line - context);
    const last = Math.min(starts.length - 1, line + context);
    entry.before = [];
    entry.after = [];
    for (let i = first; i < line; i++) entry.before.push(clipLine(lineText(text, starts, i), 0));
    for (let i = line + 1; i <= last; i++) entry.after.push(clipLine(lineText(text, starts, i), 0));
  }
  return entry;
}

/** A long line is shown as a window around `column`, marked with how much was cut. */
function clipLine(line: string, column: number): string {
  if (line.length <= LINE_WINDOW * 2) return line;
  const start = Math.max(0, column - LINE_WINDOW);
  const end = Math.min(line.length, column + LINE_WINDOW);
  const head = start > 0 ? `[… ${start} chars] ` : '';
  const tail = end < line.length ? ` [… ${line.length - end} chars]` : '';
  return head + line.slice(start, end) + tail;
}

/**
 * Lines `start` to `end` (1-based, inclusive): `text.split('\n').slice(start - 1, end).join('\n')`,
 * cut at `maxChars` with a marker.
 */
export function lineRange(
  text: string,
  {
    start,
    end,
    starts,
    maxChars,
  }: { start: number; end: number; starts: readonly number[]; maxChars: number },
): string {
  const first = Math.max(0, start - 1);
  const last = Math.min(starts.length, end);
  if (last <= first) return '';
  const from = starts[first] ?? text.length;
  const next = starts[last];
  const to = next === undefined ? text.length : next - 1;
  const slice = text.slice(from, to);
  return slice.length <= maxChars
    ? slice
    : `${slice.slice(0, maxChars)}… + [${slice.length - maxChars} chars...]`;
}

/** One chunk of `chunk`: offsets and lines, never the text itself. */
export interface ChunkBounds {
  index: number;
  /** Offsets for `context.slice(start, end)` (JavaScript), `context[start:end]` (Python). */
  start: number;
  end: number;
  /** 1-based lines where the chunk starts and ends. */
  startLine: number;
  endLine: number;
}

/** How many chunks `chunkBounds` makes of `length` characters. */
export function chunkCount(
  length: number,
  { size, overlap }: { size: number; overlap: number },
): number {
  return length <= size ? 1 : 1 + Math.ceil((length - size) / (size - overlap));
}

/**
 * Boundaries of consecutive `size`-character chunks overlapping by `overlap` characters
 * (characters are code points when `offsets` is given).
 *
 * @throws RlmError `sandbox.too_large` when there would be more than `maxItems` chunks (counted
 *   before any is made: a cut list would silently leave part of the context uncovered)
 */
export function chunkBounds(
  text: string,
  {
    size,
    overlap,
    starts,
    maxItems,
    offsets,
  }: {
    size: number;
    overlap: number;
    starts: readonly number[];
    maxItems: number;
    offsets?: CodePointOffsets;
  },
): ChunkBounds[] {
  const length = offsets === undefined ? text.length : offsets.toCodePoints(text.length);
  const count = chunkCount(length, { size, overlap });
  if (count > maxItems) {
    const larger = `a size of about ${Math.ceil((length - overlap) / maxItems) + overlap} or more`;
    const remedy = count <= MAX_HELPER_ITEMS ? `${larger}, or { max: ${count} }` : larger;
    throw new RlmError({
      code: 'sandbox.too_large',
      message: `chunk: ${count} chunks of ${size} characters would cover this context, more than max (${maxItems}); use ${remedy}`,
      details: { what: 'chunk', size: count, limit: maxItems },
    });
  }
  const toUnits = (at: number): number => (offsets === undefined ? at : offsets.toUtf16(at));
  const chunks: ChunkBounds[] = [];
  const step = size - overlap;
  for (let start = 0, index = 0; start < length || index === 0; start += step, index++) {
    const end = Math.min(length, start + size);
    const startUnit = toUnits(start);
    chunks.push({
      index,
      start,
      end,
      startLine: lineOf(starts, startUnit) + 1,
      endLine: lineOf(starts, Math.max(startUnit, toUnits(end) - 1)) + 1,
    });
    if (end >= length) break;
  }
  return chunks;
}
