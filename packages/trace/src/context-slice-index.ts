import { BlockTable } from './block-table.js';
import { commonPrefixLength, commonSuffixLength } from './common-run.js';

/** Characters per indexed block: a slice is found once it covers one aligned block of a context. */
export const SLICE_BLOCK_CHARS = 128;

const BASE = 0x01000193;

/** `BASE ** (SLICE_BLOCK_CHARS - 1)` modulo 2³², the weight of the character leaving the window. */
const OUTGOING_WEIGHT = (() => {
  let weight = 1;
  for (let step = 1; step < SLICE_BLOCK_CHARS; step++) weight = Math.imul(weight, BASE);
  return weight;
})();

function blockHash(text: string, start: number): number {
  let hash = 0;
  for (let at = start; at < start + SLICE_BLOCK_CHARS; at++) {
    hash = (Math.imul(hash, BASE) + text.charCodeAt(at)) | 0;
  }
  return hash;
}

/** Where a recorded string repeats a context: `text[start, start + length)` equals the context at `offset`. */
export interface SliceMatch {
  context: number;
  start: number;
  offset: number;
  length: number;
}

/**
 * How far past a block that occurs more than once in the contexts (repetitive text) the scan
 * looks for one that occurs once: a unique block tells where a slice really comes from, so its
 * match runs on where a repeated block's first occurrence would stop short.
 */
const LOOKAHEAD_CHARS = 4_096;

/** Where a scan of one string is. */
interface Scan {
  text: string;
  /** Where the last match ended: a match never reaches back before it. */
  covered: number;
  /** A repeated block's hit, taken when no unique one comes within LOOKAHEAD_CHARS. */
  fallback: { start: number; hit: number } | undefined;
}

/**
 * Finds the slices of a set of contexts that a string embeds, in time linear in the string. The
 * contexts are indexed once (a hash of each aligned block); a rolling hash over the string looks
 * every window up, a hit is verified character by character and extended both ways. Any match
 * at least a block long is found, wherever it starts in the context and in the string.
 */
export class ContextSliceIndex {
  readonly #contexts: readonly string[];
  #blocks: BlockTable | undefined;

  constructor(contexts: readonly string[]) {
    this.#contexts = contexts;
  }

  /** The non-overlapping slices of `text` found in the contexts, in order. */
  matches(text: string): SliceMatch[] {
    const found: SliceMatch[] = [];
    if (text.length < SLICE_BLOCK_CHARS || this.#index().size === 0) return found;
    const scan: Scan = { text, covered: 0, fallback: undefined };
    let start = 0;
    let hash = blockHash(text, 0);
    for (;;) {
      const match = this.#matchAt(scan, start, hash);
      let next = start + 1;
      if (match !== undefined) {
        found.push(match);
        scan.covered = match.start + match.length;
        scan.fallback = undefined;
        next = scan.covered;
      }
      if (next + SLICE_BLOCK_CHARS > text.length) return found;
      hash =
        next === start + 1
          ? (Math.imul(hash - Math.imul(text.charCodeAt(start), OUTGOING_WEIGHT), BASE) +
              text.charCodeAt(start + SLICE_BLOCK_CHARS)) |
            0
          : blockHash(text, next);
      start = next;
    }
  }

  /**
   * The match of the window at `start`: a block that occurs once is taken at once; a repeated
   * one is kept as the fallback, taken when no unique one comes within LOOKAHEAD_CHARS or the
   * text ends.
   */
  #matchAt(scan: Scan, start: number, hash: number): SliceMatch | undefined {
    const blocks = this.#index();
    const hit = blocks.find(hash);
    if (hit !== -1 && !blocks.repeated(hit)) {
      const match = this.#verify(scan.text, { start, hit, covered: scan.covered });
      if (match !== undefined) return match;
    } else if (hit !== -1) {
      scan.fallback ??= { start, hit };
    }
    const { fallback } = scan;
    const atEnd = start + 1 + SLICE_BLOCK_CHARS > scan.text.length;
    if (fallback === undefined || !(atEnd || start - fallback.start >= LOOKAHEAD_CHARS)) {
      return undefined;
    }
    scan.fallback = undefined;
    return this.#verify(scan.text, { ...fallback, covered: scan.covered });
  }

  /** The match around a window at `start` whose hash hit the block in slot `hit`, not reaching back past `covered`. */
  #verify(
    text: string,
    { start, hit, covered }: { start: number; hit: number; covered: number },
  ): SliceMatch | undefined {
    const blocks = this.#index();
    const context = blocks.context(hit);
    const source = this.#contexts[context] ?? '';
    const offset = blocks.offset(hit);
    if (
      text.slice(start, start + SLICE_BLOCK_CHARS) !==
      source.slice(offset, offset + SLICE_BLOCK_CHARS)
    ) {
      return undefined;
    }
    const before = commonSuffixLength(
      { text, at: start },
      { text: source, at: offset },
      Math.min(start - covered, offset),
    );
    const after = commonPrefixLength(
      { text, at: start + SLICE_BLOCK_CHARS },
      { text: source, at: offset + SLICE_BLOCK_CHARS },
      Math.min(text.length - start, source.length - offset) - SLICE_BLOCK_CHARS,
    );
    return {
      context,
      start: start - before,
      offset: offset - before,
      length: before + SLICE_BLOCK_CHARS + after,
    };
  }

  /** Built on first use, so a run that records nothing long never pays for it. */
  #index(): BlockTable {
    if (this.#blocks !== undefined) return this.#blocks;
    let count = 0;
    for (const source of this.#contexts) count += Math.floor(source.length / SLICE_BLOCK_CHARS);
    const blocks = new BlockTable(count);
    for (const [context, source] of this.#contexts.entries()) {
      for (
        let offset = 0;
        offset + SLICE_BLOCK_CHARS <= source.length;
        offset += SLICE_BLOCK_CHARS
      ) {
        // The first block with a hash is kept; a collision only costs a failed verification.
        blocks.add(blockHash(source, offset), context, offset);
      }
    }
    this.#blocks = blocks;
    return blocks;
  }
}
