/**
 * The context helpers' scans over one payload's text, as pure functions. They run in a scan
 * worker on the host, with V8's regex engine (far faster than Python's `re` inside WebAssembly).
 * Offsets in results are code points (Python's `str` indices); `CodePointOffsets` converts.
 */
import type { CodePointOffsets } from './code-point-offsets.js';

/** Caps every result is cut to, with a note saying how much was left out. */
export interface ResultCaps {
  maxItems: number;
  maxChars: number;
}

/** Characters of a very long line shown on each side of a match. */
const LINE_WINDOW = 500;

/** Offsets where lines start: entry i is where line i + 1 begins (lines end at `\n`). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 0-based line that holds `offset`. */
function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Line `index` (0-based) without its `\n` or `\r\n`. */
function lineText(text: string, starts: readonly number[], index: number): string {
  const start = starts[index] ?? text.length;
  const next = starts[index + 1];
  let end = next === undefined ? text.length : next - 1;
  if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
  return text.slice(start, end);
}

/** A global copy of the pattern: every match, left to right, as `matchAll` finds them. */
export function globalPattern(source: string, flags: string): RegExp {
  return new RegExp(source, flags.includes('g') ? flags : `${flags}g`);
}

function capNote(shown: number, total: number, what: string): string | undefined {
  return shown < total
    ? `${total - shown} of ${total} ${what} not shown (result cap); narrow the pattern or raise max`
    : undefined;
}

/** One match of `find_all`. */
export interface FindAllMatch {
  match: string;
  /** Code-point offset: `context[index:index + len(match)]` is the match. */
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

/** Every match with its offset and groups, capped. */
export function findAll(
  text: string,
  pattern: RegExp,
  options: ResultCaps & { offsets: CodePointOffsets },
): FindAllResult {
  const matches: FindAllMatch[] = [];
  let total = 0;
  let chars = 0;
  for (const found of text.matchAll(pattern)) {
    total += 1;
    const groups = found.slice(1).map((group) => group ?? null);
    const size = found[0].length + groups.reduce((sum, group) => sum + (group?.length ?? 0), 0);
    if (matches.length >= options.maxItems || chars + size > options.maxChars) continue;
    chars += size;
    const item: FindAllMatch = {
      match: found[0],
      index: options.offsets.toCodePoints(found.index),
      groups,
    };
    if (found.groups !== undefined) {
      item.named = Object.fromEntries(
        Object.entries(found.groups).map(([name, value]) => [name, value ?? null]),
      );
    }
    matches.push(item);
  }
  const note = capNote(matches.length, total, 'matches');
  return note === undefined ? { matches, total } : { matches, total, note };
}

/** How many matches there are, without building them. */
export function countMatches(text: string, pattern: RegExp): number {
  let total = 0;
  for (const _ of text.matchAll(pattern)) total += 1;
  return total;
}

/** One matching line of `grep`. */
export interface GrepLine {
  /** 1-based line number. */
  line: number;
  text: string;
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

/** Lines where the pattern matches (a match belongs to the line it starts on), with neighbours. */
export function grep(
  text: string,
  pattern: RegExp,
  options: ResultCaps & { context: number; starts: readonly number[] },
): GrepResult {
  const { starts, context } = options;
  const matches: GrepLine[] = [];
  let total = 0;
  let chars = 0;
  pattern.lastIndex = 0;
  for (let found = pattern.exec(text); found !== null; found = pattern.exec(text)) {
    const line = lineAt(starts, found.index);
    total += 1;
    // One hit per line: go on from the next line.
    pattern.lastIndex = starts[line + 1] ?? text.length + 1;
    if (matches.length >= options.maxItems) continue;
    const entry = grepEntry(text, starts, {
      line,
      column: found.index - (starts[line] ?? 0),
      context,
    });
    const size = [entry.text, ...(entry.before ?? []), ...(entry.after ?? [])].join('').length;
    if (chars + size > options.maxChars) continue;
    chars += size;
    matches.push(entry);
  }
  const note = capNote(matches.length, total, 'matching lines');
  return note === undefined ? { matches, total } : { matches, total, note };
}

function grepEntry(
  text: string,
  starts: readonly number[],
  { line, column, context }: { line: number; column: number; context: number },
): GrepLine {
  const entry: GrepLine = { line: line + 1, text: clip(lineText(text, starts, line), column) };
  if (context > 0) {
    entry.before = [];
    entry.after = [];
    for (let i = Math.max(0, line - context); i < line; i++) {
      entry.before.push(clip(lineText(text, starts, i), 0));
    }
    for (let i = line + 1; i <= Math.min(starts.length - 1, line + context); i++) {
      entry.after.push(clip(lineText(text, starts, i), 0));
    }
  }
  return entry;
}

/** A long line becomes a window around `column`, marked with how much was cut on each side. */
function clip(line: string, column: number): string {
  if (line.length <= LINE_WINDOW * 2) return line;
  const start = Math.max(0, column - LINE_WINDOW);
  const end = Math.min(line.length, column + LINE_WINDOW);
  const head = start > 0 ? `[… ${start} chars] ` : '';
  const tail = end < line.length ? ` [… ${line.length - end} chars]` : '';
  return head + line.slice(start, end) + tail;
}

/** Lines `start`..`end` (1-based, inclusive), joined with `\n`, cut at `maxChars` with a marker. */
export function lineRange(
  text: string,
  range: { start: number; end: number; starts: readonly number[]; maxChars: number },
): string {
  const first = Math.max(0, range.start - 1);
  const last = Math.min(range.starts.length, range.end);
  if (last <= first) return '';
  const from = range.starts[first] ?? text.length;
  const next = range.starts[last];
  const slice = text.slice(from, next === undefined ? text.length : next - 1);
  return slice.length <= range.maxChars
    ? slice
    : `${slice.slice(0, range.maxChars)}… + [${slice.length - range.maxChars} chars...]`;
}

/** One chunk of `chunk`: code-point offsets and lines, never the text itself. */
export interface ChunkBounds {
  index: number;
  /** `context[start:end]` is the chunk. */
  start: number;
  end: number;
  startLine: number;
  endLine: number;
}

/**
 * Consecutive chunks of `size` characters (code points) overlapping by `overlap`. Sizes count
 * Python characters, so a chunk never splits a character.
 */
export function chunkBounds(
  text: string,
  options: {
    size: number;
    overlap: number;
    maxItems: number;
    starts: readonly number[];
    offsets: CodePointOffsets;
  },
): ChunkBounds[] {
  const { size, overlap, starts, offsets } = options;
  const length = offsets.toCodePoints(text.length);
  const count = Math.max(1, Math.ceil((length - overlap) / (size - overlap)));
  if (count > options.maxItems) {
    throw new Error(
      `chunk: ${count} chunks of ${size} characters exceed max (${options.maxItems}); use a larger size or pass max=${count} (at most 100000)`,
    );
  }
  const chunks: ChunkBounds[] = [];
  for (let start = 0, index = 0; start < length || index === 0; start += size - overlap, index++) {
    const end = Math.min(length, start + size);
    const startUnit = offsets.toUtf16(start);
    const endUnit = offsets.toUtf16(end);
    chunks.push({
      index,
      start,
      end,
      startLine: lineAt(starts, startUnit) + 1,
      endLine: lineAt(starts, Math.max(startUnit, endUnit - 1)) + 1,
    });
    if (end >= length) break;
  }
  return chunks;
}
