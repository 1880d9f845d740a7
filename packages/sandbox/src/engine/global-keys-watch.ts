import type { QuickJSContext } from 'quickjs-emscripten-core';

/**
 * The parts of quickjs-emscripten-core 0.32 and its QuickJS build (both pinned exactly) this
 * reads: WASM memory and the handle of the global object. Not public API: checked before use,
 * and checked again against the guest's own count of the keys every time the guest lists them.
 */
interface ContextInternals {
  module?: { HEAPU8: Uint8Array };
}

/**
 * Where QuickJS (wasm32, NaN-boxed `JSValue`s) keeps an object's own keys: `JSObject.shape` sits
 * after the GC header and the weak reference count; a `JSShape` holds `prop_size`, `prop_count`
 * (deleted slots included) and `deleted_prop_count`, then its `JSShapeProperty` entries of two
 * words each, the second the key's atom (0 for a deleted slot).
 */
const OBJECT_TAG = -1;
const SHAPE_OFFSET = 20;
const PROP_SIZE_OFFSET = 28;
const PROP_COUNT_OFFSET = 32;
const DELETED_COUNT_OFFSET = 36;
const PROPS_OFFSET = 48;
/** A sanity bound: a shape this large is taken as a layout that is not the one above. */
const MAX_PROPS = 1 << 24;

/**
 * Tells, without running any guest code, whether the global object's own keys may have changed
 * since a snapshot: listing them in the guest (`Object.getOwnPropertyNames` of ~70 globals) costs
 * a block more than anything else the scaffold does, and most blocks add or delete no global.
 *
 * The snapshots are the global's shape entries; for the listing, the key atoms in shape order are
 * compared. Equal atoms mean equal keys while every
 * atom of the snapshot stays alive (a freed atom's number can be given to another string): the
 * guest's listing holds every key it listed (see `listing.held` in guest-variables.ts), and the
 * host keeps a snapshot only of keys the guest listed at that moment. Anything unexpected (a
 * missing internal, an implausible layout, a count that differs from the guest's) turns the
 * watch off for good, and every block lists the globals as before. The same entries, flags
 * included, tell when the scaffold names may need more than a look at their values (`restore`).
 */
export class GlobalKeysWatch {
  readonly #module: { HEAPU8: Uint8Array } | undefined;
  /** Address of the global `JSObject`. */
  readonly #object: number;
  /** A view of WASM memory, made again when the memory grows (its old buffer is detached). */
  #words: Uint32Array | undefined;
  /** The entries when the guest last listed the globals (see `afterFinish`). */
  #listed: Uint32Array | undefined;
  /** The entries after the scaffold last put back every scaffold name. */
  #restored: Uint32Array | undefined;
  /** The entries `beforeFinish` saw, for `afterFinish` (copied only when they are new). */
  #seen: Uint32Array | undefined;
  #restoredSeen: Uint32Array | undefined;
  #enabled: boolean;

  constructor(context: QuickJSContext) {
    const { module } = context as unknown as ContextInternals;
    const heap = module?.HEAPU8;
    const valuePointer = context.global.value as unknown;
    let object = 0;
    if (heap instanceof Uint8Array && typeof valuePointer === 'number' && valuePointer % 4 === 0) {
      const words = new Int32Array(heap.buffer, valuePointer, 2);
      if (words[1] === OBJECT_TAG) object = words[0] as number;
    }
    this.#module = module;
    this.#object = object;
    this.#enabled = object !== 0 && object % 4 === 0;
  }

  /**
   * Before the scaffold ends a block: whether the keys are those the guest last listed, and
   * whether no key or flag changed since the scaffold names were last put back. Until
   * `afterFinish`, neither holds for any later call (the guest's listing and the scaffold names
   * may be half done).
   */
  beforeFinish(): { keysUnchanged: boolean; namesSettled: boolean } {
    const listed = this.#listed;
    const restored = this.#restored;
    this.#listed = undefined;
    this.#restored = undefined;
    const keysUnchanged = this.#matches(listed, 2);
    const namesSettled = this.#matches(restored, 1);
    this.#seen = keysUnchanged ? listed : this.#copy();
    this.#restoredSeen = namesSettled ? restored : undefined;
    return { keysUnchanged, namesSettled };
  }

  /**
   * After the scaffold ended a block. `listed`: how many keys the guest counted when it listed
   * the globals with no guest code run since `beforeFinish`, `'reused'` when it kept its last
   * listing, `'uncertain'` when guest code may have run before it listed them. `restoredAll`:
   * whether every scaffold name was put back.
   */
  afterFinish(listed: number | 'reused' | 'uncertain', restoredAll: boolean): void {
    const seen = this.#seen;
    this.#seen = undefined;
    if (typeof listed === 'number' && seen !== undefined && liveCount(seen) !== listed) {
      this.#off();
      return;
    }
    if (listed !== 'uncertain') this.#listed = seen;
    if (!restoredAll) return;
    const before = this.#restoredSeen;
    this.#restoredSeen = undefined;
    this.#restored = this.#matches(before, 1) ? before : this.#copy();
  }

  /** Forgets the listing snapshot: the guest listed the globals at another time. */
  forget(): void {
    this.#listed = undefined;
  }

  /**
   * Whether the entries now equal `snapshot`, comparing every `step`-th word from the last one
   * (2: the key atoms only; 1: the flags too).
   */
  #matches(snapshot: Uint32Array | undefined, step: 1 | 2): boolean {
    if (snapshot === undefined) return false;
    const shape = this.#locate();
    if (shape === undefined) return false;
    const { words, at, count } = shape;
    if (snapshot.length !== count * 2) return false;
    for (let index = snapshot.length - 1; index >= 0; index -= step) {
      if (words[at + index] !== snapshot[index]) return false;
    }
    return true;
  }

  #copy(): Uint32Array | undefined {
    const shape = this.#locate();
    if (shape === undefined) return undefined;
    return shape.words.slice(shape.at, shape.at + shape.count * 2);
  }

  /**
   * Where the global's shape entries are now (`at`, in words), or `undefined` when the watch is
   * off or the memory does not look like the layout above (which turns it off).
   */
  #locate(): { words: Uint32Array; at: number; count: number } | undefined {
    if (!this.#enabled || this.#module === undefined) return undefined;
    const buffer = this.#module.HEAPU8.buffer;
    let words = this.#words;
    if (words === undefined || words.buffer !== buffer) {
      words = new Uint32Array(buffer);
      this.#words = words;
    }
    const limit = words.length;
    const shape = words[(this.#object + SHAPE_OFFSET) / 4] ?? 0;
    if (shape === 0 || shape % 4 !== 0 || shape / 4 + PROPS_OFFSET / 4 > limit) return this.#off();
    const base = shape / 4;
    const size = words[base + PROP_SIZE_OFFSET / 4] as number;
    const count = words[base + PROP_COUNT_OFFSET / 4] as number;
    const deleted = words[base + DELETED_COUNT_OFFSET / 4] as number;
    const at = base + PROPS_OFFSET / 4;
    if (!(deleted <= count && count <= size && size <= MAX_PROPS) || at + size * 2 > limit) {
      return this.#off();
    }
    return { words, at, count };
  }

  #off(): undefined {
    this.#enabled = false;
    this.#listed = undefined;
    this.#restored = undefined;
    this.#seen = undefined;
    this.#restoredSeen = undefined;
    return undefined;
  }
}

function liveCount(entries: Uint32Array): number {
  let live = 0;
  for (let index = 1; index < entries.length; index += 2) if (entries[index] !== 0) live++;
  return live;
}
