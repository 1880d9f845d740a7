/**
 * A hash table from a block's hash to where the block is (context, offset), in typed arrays: the
 * slice scan looks up every window of every long string, so a lookup must cost a few loads, not
 * a `Map` probe, and the table must stay small for contexts of many megabytes. The first block
 * with a hash is kept; a hash seen again is marked repeated (repeated text, or a collision).
 */
export class BlockTable {
  readonly #hashes: Int32Array;
  /** The context of the block in each slot, -1 for an empty slot. */
  readonly #contexts: Int32Array;
  readonly #offsets: Int32Array;
  readonly #repeated: Uint8Array;
  readonly #shift: number;
  #size = 0;

  /** A table for up to `blocks` distinct hashes. */
  constructor(blocks: number) {
    let bits = 4;
    while (2 ** bits < blocks * 2) bits++;
    this.#hashes = new Int32Array(2 ** bits);
    this.#contexts = new Int32Array(2 ** bits).fill(-1);
    this.#offsets = new Int32Array(2 ** bits);
    this.#repeated = new Uint8Array(2 ** bits);
    this.#shift = 32 - bits;
  }

  /** How many distinct hashes the table holds. */
  get size(): number {
    return this.#size;
  }

  add(hash: number, context: number, offset: number): void {
    const slot = this.#slot(hash);
    if (this.#contexts[slot] === -1) {
      this.#hashes[slot] = hash;
      this.#contexts[slot] = context;
      this.#offsets[slot] = offset;
      this.#size++;
    } else {
      this.#repeated[slot] = 1;
    }
  }

  /** The slot holding `hash`, or -1. */
  find(hash: number): number {
    const slot = this.#slot(hash);
    return this.#contexts[slot] === -1 ? -1 : slot;
  }

  context(slot: number): number {
    return this.#contexts[slot] ?? -1;
  }

  offset(slot: number): number {
    return this.#offsets[slot] ?? 0;
  }

  repeated(slot: number): boolean {
    return this.#repeated[slot] === 1;
  }

  /** The slot that holds `hash` or would take it (linear probing; the table is never full). */
  #slot(hash: number): number {
    const mask = this.#contexts.length - 1;
    let slot = Math.imul(hash, 0x9e3779b1) >>> this.#shift;
    while (this.#contexts[slot] !== -1 && this.#hashes[slot] !== hash) slot = (slot + 1) & mask;
    return slot;
  }
}
