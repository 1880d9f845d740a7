import type {
  JSContextPointer,
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { heapBreak } from './spare-memory.js';

/**
 * A copy of a blank engine's linear memory, taken once per thread (and memory size) right after
 * its prelude was evaluated, from which later blank engines start instead of evaluating the
 * prelude again: parsing and compiling the prelude was most of a warm create's CPU, and
 * QuickJS-emscripten 0.32 offers no way to keep compiled bytecode (see blank-engine.ts).
 *
 * Why a copy is the same engine: the WASM build is deterministic. A fresh instance, given the
 * same calls (`newRuntime`, the same stack limit), allocates the runtime at the same address and
 * leaves memory byte for byte as the image's instance did at that point; the rest of what
 * evaluating the prelude did lives in linear memory below the break (see spare-memory.ts) and in
 * nothing else: the one WASM global, the stack pointer, is back at its start between calls, and
 * the JavaScript side of the library holds only pointers, which are equal. So a restore runs
 * those calls, checks the runtime's address, writes the image over the memory, and wraps the
 * image's context and factory in handles of the new instance.
 *
 * What must differ between engines does: QuickJS seeds `Math.random` from the clock when it
 * makes a context; the restore writes a fresh seed (taken from the clock the same way) over the
 * image's. The memory written is the image's only: no byte of another sandbox reaches it (a spare
 * memory was wiped when its engine went, and the image is taken before any sandbox uses its
 * engine).
 *
 * quickjs-emscripten is pinned at 0.32.0: the restore uses its `contextPointer` option and two
 * protected fields (a context's `memory` and `uint32Out`), and checks each before relying on it.
 */

/** Granularity of the image: only pages holding something are kept and written. */
const CHUNK_BYTES = 4096;
/** How far into the context structure the `Math.random` seed is looked for. */
const CONTEXT_SEARCH_BYTES = 1024;
/** A seed is the clock in microseconds when the context was made: this close to now. */
const SEED_WINDOW_US = 60_000_000;

interface EmscriptenHeap {
  HEAPU8: Uint8Array;
  _free(pointer: number): void;
}

/** The protected parts of a 0.32 context the restore uses. */
interface ContextInternals {
  memory?: { heapValueHandle?: (pointer: number) => QuickJSHandle };
  uint32Out?: { value?: { ptr?: unknown } };
}

/** Everything needed to start an engine from the image. */
export interface PreludeImage {
  readonly memoryBytes: number;
  readonly runtimePointer: number;
  readonly contextPointer: number;
  /** The heap cell holding the prelude's `installScaffold`. */
  readonly factoryPointer: number;
  /** The 4-byte buffer the image's context wrapper allocated; a new wrapper allocates its own. */
  readonly scratchPointer: number;
  /** Offset of the `Math.random` state in the context structure. */
  readonly seedOffset: number;
  /** Start address of each page kept, and their bytes one after the other. */
  readonly pages: Uint32Array;
  readonly bytes: Uint8Array;
  /** Pages the instance had written when its runtime was made that hold nothing in the image. */
  readonly clearPages: Uint32Array;
}

function heapOf(module: QuickJSWASMModule): EmscriptenHeap {
  // quickjs-emscripten (pinned at 0.32.0) keeps the emscripten module in a protected field.
  return (module as unknown as { module: EmscriptenHeap }).module;
}

/** The clock in microseconds, as QuickJS seeds `Math.random` (`gettimeofday`). */
function clockMicros(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}

/** Start addresses of the pages below `end` that hold a nonzero byte. */
function writtenPages(memory: Uint8Array, end: number): number[] {
  const zeros = new Uint8Array(CHUNK_BYTES);
  const pages: number[] = [];
  for (let start = 0; start < end; start += CHUNK_BYTES) {
    const length = Math.min(CHUNK_BYTES, end - start);
    const page = Buffer.from(memory.buffer, memory.byteOffset + start, length);
    if (page.compare(zeros, 0, length) !== 0) pages.push(start);
  }
  return pages;
}

/**
 * The offset of the `Math.random` seed in a context made just now: the one aligned 64-bit word of
 * its structure that reads as the clock in microseconds. `undefined` unless exactly one does.
 */
function findSeedOffset(memory: Uint8Array, contextPointer: number): number | undefined {
  if (contextPointer % 8 !== 0 || contextPointer + CONTEXT_SEARCH_BYTES > memory.byteLength) {
    return undefined;
  }
  const view = new DataView(
    memory.buffer,
    memory.byteOffset + contextPointer,
    CONTEXT_SEARCH_BYTES,
  );
  const now = clockMicros();
  const found: number[] = [];
  for (let offset = 0; offset < CONTEXT_SEARCH_BYTES; offset += 8) {
    const value = view.getBigUint64(offset, true);
    if (value <= now + 1_000_000n && value >= now - BigInt(SEED_WINDOW_US)) found.push(offset);
  }
  return found.length === 1 ? found[0] : undefined;
}

/**
 * Records what taking an image needs from an instance being made the usual way: call `afterRuntime`
 * once its runtime exists (stack limit set), `afterContext` once its context does, and `take`
 * once the prelude is evaluated. Any step returns `undefined` when no image can be taken.
 */
export class ImageRecorder {
  readonly #module: QuickJSWASMModule;
  readonly #memoryBytes: number;
  #runtimeWrites: number[] | undefined;
  #seedOffset: number | undefined;

  constructor(module: QuickJSWASMModule, memoryBytes: number) {
    this.#module = module;
    this.#memoryBytes = memoryBytes;
  }

  afterRuntime(): void {
    const brk = heapBreak(this.#module);
    if (brk === undefined) return;
    this.#runtimeWrites = writtenPages(heapOf(this.#module).HEAPU8, brk);
  }

  afterContext(context: QuickJSContext): void {
    this.#seedOffset = findSeedOffset(heapOf(this.#module).HEAPU8, pointerOf(context));
  }

  take(
    runtime: QuickJSRuntime,
    context: QuickJSContext,
    factory: QuickJSHandle,
  ): PreludeImage | undefined {
    const brk = heapBreak(this.#module);
    const seedOffset = this.#seedOffset;
    const runtimeWrites = this.#runtimeWrites;
    const scratchPointer = (context as unknown as ContextInternals).uint32Out?.value?.ptr;
    if (
      brk === undefined ||
      seedOffset === undefined ||
      runtimeWrites === undefined ||
      typeof scratchPointer !== 'number' ||
      typeof (context as unknown as ContextInternals).memory?.heapValueHandle !== 'function'
    ) {
      return undefined;
    }
    const memory = heapOf(this.#module).HEAPU8;
    const pages = writtenPages(memory, brk);
    const bytes = new Uint8Array(pages.length * CHUNK_BYTES);
    pages.forEach((start, index) => {
      const end = Math.min(start + CHUNK_BYTES, brk);
      bytes.set(memory.subarray(start, end), index * CHUNK_BYTES);
    });
    const kept = new Set(pages);
    return {
      memoryBytes: this.#memoryBytes,
      runtimePointer: pointerOf(runtime),
      contextPointer: pointerOf(context),
      factoryPointer: factory.value as unknown as number,
      scratchPointer,
      seedOffset,
      pages: Uint32Array.from(pages),
      bytes,
      clearPages: Uint32Array.from(runtimeWrites.filter((start) => !kept.has(start))),
    };
  }
}

function pointerOf(owner: QuickJSRuntime | QuickJSContext): number {
  const holder = owner as unknown as { rt?: { value: number }; ctx?: { value: number } };
  return ('ctx' in owner ? holder.ctx?.value : holder.rt?.value) ?? 0;
}

/**
 * Writes the image over a fresh instance whose runtime was just made (stack limit set) and wraps
 * the image's context and factory. `undefined`, with nothing written, when the runtime is not
 * where the image's was (the instance is then still fresh, and usable the usual way).
 */
export function restoreImage(
  image: PreludeImage,
  module: QuickJSWASMModule,
  runtime: QuickJSRuntime,
): { context: QuickJSContext; factory: QuickJSHandle } | undefined {
  if (pointerOf(runtime) !== image.runtimePointer) return undefined;
  const heap = heapOf(module);
  const memory = heap.HEAPU8;
  if (memory.byteLength !== image.memoryBytes) return undefined;
  for (const start of image.clearPages) memory.fill(0, start, start + CHUNK_BYTES);
  image.pages.forEach((start, index) => {
    memory.set(image.bytes.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES), start);
  });
  // The image's context wrapper allocated this buffer; the new wrapper allocates its own.
  heap._free(image.scratchPointer);
  const context = runtime.newContext({
    contextPointer: image.contextPointer as JSContextPointer,
  });
  new DataView(memory.buffer, memory.byteOffset + image.contextPointer).setBigUint64(
    image.seedOffset,
    clockMicros(),
    true,
  );
  const internals = context as unknown as ContextInternals;
  const factory = internals.memory?.heapValueHandle?.(image.factoryPointer);
  if (factory === undefined) throw new Error('the prelude image could not be restored');
  return { context, factory };
}
