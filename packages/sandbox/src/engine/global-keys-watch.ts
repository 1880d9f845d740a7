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
 * The listing snapshot is the global's shape entries; its key atoms, in shape order, are compared. Equal atoms mean equal keys while every
 * atom of the snapshot stays alive (a freed atom's number can be given to another string): the
 * guest's listing holds every key it listed (see `listing.held` in guest-variables.ts), and the
 * host keeps a snapshot only of keys the guest listed at that moment. Anything unexpected (a
 * missing internal, an implausible layout, a count that differs from the guest's) turns the
 * watch off for good, and every block lists the globals as before.
 */
export class GlobalKeysWatch {
  readonly #module: { HEAPU8: Uint8Array } | undefined;
  /** Address of the global `JSObject`. */
  readonly #object: number;
  /** The entries when the guest last listed the globals (see `keep`). */
  #listed: Uint32Array | undefined;
  /** The entries after the scaffold last put back every scaffold name (see `settle`). */
  #restored: Uint32Array | undefined;
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
   * The global's shape entries now (two words each: hash link and flags, then the key's atom), or
   * `undefined` when the watch is off or the memory does not look like the layout above (which
   * turns it off).
   */
  read(): Uint32Array | undefined {
    if (!this.#enabled || this.#module === undefined) return undefined;
    const buffer = this.#module.HEAPU8.buffer;
    const limit = buffer.byteLength;
    if (this.#object + SHAPE_OFFSET + 4 > limit) return this.#off();
    const shape = new Uint32Array(buffer, this.#object + SHAPE_OFFSET, 1)[0] as number;
    if (shape === 0 || shape % 4 !== 0 || shape + PROPS_OFFSET > limit) return this.#off();
    const header = new Int32Array(buffer, shape + PROP_SIZE_OFFSET, 3);
    const size = header[0] as number;
    const count = header[PROP_COUNT_OFFSET / 4 - PROP_SIZE_OFFSET / 4] as number;
    const deleted = header[DELETED_COUNT_OFFSET / 4 - PROP_SIZE_OFFSET / 4] as number;
    if (
      !(0 <= deleted && deleted <= count && count <= size && size <= MAX_PROPS) ||
      shape + PROPS_OFFSET + size * 8 > limit
    ) {
      return this.#off();
    }
    return new Uint32Array(buffer, shape + PROPS_OFFSET, count * 2).slice();
  }

  /** Whether the keys are those of the listing snapshot (false when there is none). */
  unchanged(now: Uint32Array | undefined): boolean {
    const before = this.#listed;
    if (now === undefined || before === undefined || now.length !== before.length) return false;
    for (let index = 1; index < now.length; index += 2) {
      if (now[index] !== before[index]) return false;
    }
    return true;
  }

  /**
   * Keeps `entries` as the listing snapshot: the keys the guest's listing holds now. `listed` is
   * how many keys the guest counted, or `undefined` when it reused its last listing (already
   * checked).
   */
  keep(entries: Uint32Array | undefined, listed: number | undefined): void {
    if (entries === undefined) return;
    if (listed !== undefined && liveCount(entries) !== listed) {
      this.#off();
      return;
    }
    this.#listed = entries;
  }

  /** Forgets the listing snapshot: the guest's listing may no longer match any known keys. */
  forget(): void {
    this.#listed = undefined;
  }

  /**
   * Keeps the entries as the scaffold left them after putting back every scaffold name (or
   * forgets them, with `undefined`): while no key is added or deleted and no flag changes (no
   * property turns into an accessor, none gets read-only or hidden…), every scaffold name is
   * still the data property it made, and only its value can differ.
   */
  settle(entries: Uint32Array | undefined): void {
    this.#restored = entries;
  }

  /** Whether no key or flag changed since `settle` (false when there is nothing settled). */
  unchangedSinceSettled(now: Uint32Array | undefined): boolean {
    const before = this.#restored;
    if (now === undefined || before === undefined || now.length !== before.length) return false;
    for (let index = 0; index < now.length; index++) {
      if (now[index] !== before[index]) return false;
    }
    return true;
  }

  #off(): undefined {
    this.#enabled = false;
    this.#listed = undefined;
    this.#restored = undefined;
    return undefined;
  }
}

function liveCount(entries: Uint32Array): number {
  let live = 0;
  for (let index = 1; index < entries.length; index += 2) if (entries[index] !== 0) live++;
  return live;
}
