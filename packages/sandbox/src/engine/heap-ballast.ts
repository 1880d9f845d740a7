import type { QuickJSWASMModule } from 'quickjs-emscripten-core';

/** The allocator QuickJS itself uses: the WASM module's own `malloc` and `free`. */
interface WasmHeap {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/**
 * Heap held back so that, after an out-of-memory error, releasing it leaves room for the
 * scaffold's own work (describing the error, listing and clearing the variables that filled the
 * heap): QuickJS can corrupt its heap when an allocation fails in the middle of some built-ins, so
 * the scaffold never works with the heap full.
 *
 * It is taken from the module's `malloc`, the allocator QuickJS's runtime allocates from, rather
 * than as a guest `ArrayBuffer`: an `ArrayBuffer` is zero-filled, which touched (and made
 * resident) every page of it for each sandbox, while a plain allocation from fresh memory touches
 * only its bounds. Freeing it gives the same room back to QuickJS.
 */
export class HeapBallast {
  readonly #heap: WasmHeap;
  readonly #bytes: number;
  #pointer = 0;
  /** Whether it was ever let go: its block may since hold anything. */
  #released = false;

  constructor(module: QuickJSWASMModule, bytes: number) {
    // quickjs-emscripten (pinned at 0.32.0) keeps the emscripten module in a protected field; it
    // exports `_malloc` and `_free`.
    this.#heap = (module as unknown as { module: WasmHeap }).module;
    this.#bytes = bytes;
  }

  /** Takes the ballast (again); false when the heap has no room for it. */
  hold(): boolean {
    if (this.#pointer === 0) this.#pointer = this.#heap._malloc(this.#bytes);
    return this.#pointer !== 0;
  }

  /** Lets go of the ballast (allocates nothing). */
  release(): void {
    if (this.#pointer === 0) return;
    this.#released = true;
    this.#heap._free(this.#pointer);
    this.#pointer = 0;
  }

  /** `[start, end)` of the block while it is the first one taken (never let go since). */
  firstHold(): { start: number; end: number } | undefined {
    if (this.#pointer === 0 || this.#released) return undefined;
    return { start: this.#pointer, end: this.#pointer + this.#bytes };
  }
}
