import type { QuickJSWASMModule } from 'quickjs-emscripten-core';

/**
 * Linear memories of disposed engines, kept for the next engine on this thread and wiped when it
 * takes one.
 *
 * A sandbox's fixed `WebAssembly.Memory` is its memory cap, so it is reserved at full size (512
 * MiB by default). V8 counts each new one as that much external memory and answers with a full
 * garbage collection: measured, that was about half the CPU a warm create + dispose cost. Handing
 * the next engine the memory of one that is gone avoids it. The next engine is still a fresh WASM
 * instance: the memory is wiped to zeros before it is handed over (every byte the old instance
 * could have touched), so it starts from exactly what a new memory holds, and nothing of the
 * previous sandbox is left. The wipe waits for that hand-over, not the dispose: a process's only
 * sandbox (a CLI run) never pays it (~15–20 ms of CPU for a 10 MB break), and a spare nobody
 * takes is dropped like any other memory nothing references.
 *
 * Which bytes an instance touched: emscripten's allocator takes memory only by moving a break
 * (`sbrk`), upwards, and this build never moves it back; the static data, the stack and every
 * allocation lie below it. The break lives in the module's static data at an address fixed by
 * the build (pinned: quickjs-emscripten 0.32.0), which `findBreakAddress` finds once per thread on
 * a fresh instance and checks; without it, nothing is reused.
 */

/** A memory this module knows the size of (the parts of `WebAssembly.Memory` used here). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

interface EmscriptenHeap {
  HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(pointer: number): void;
}

/** A memory whose instance touched more than this is dropped: a spare keeps its pages resident. */
const MAX_SPARE_BREAK_BYTES = 24 * 1024 * 1024;
/** Spares kept per thread (a fan-out disposes and creates a few at a time). */
const MAX_SPARES = 2;
/** A spare nobody took within this time is dropped, so an idle thread holds no wiped pages. */
const SPARE_IDLE_MS = 2_000;
/** How much the break search grows the heap by, twice (untouched: it costs no resident memory). */
const PROBE_BYTES = 2 * 1024 * 1024;
/** The search runs on a memory at least this large (smaller ones may lack room for its probes). */
const SEARCH_MIN_BYTES = 32 * 1024 * 1024;
/** How far into the memory the search looks for the break (the static data). */
const SEARCH_BYTES = 1024 * 1024;
const WIPE_CHUNK_BYTES = 64 * 1024;

const memoryOf = new WeakMap<QuickJSWASMModule, WasmMemory>();
/** A span of a memory its engine never wrote (the wipe does not even read its pages). */
interface UntouchedSpan {
  start: number;
  end: number;
}

/**
 * Spares by size, each with its break and never-written span (what to wipe when taken) and the
 * timer that drops it.
 */
const spares: {
  memory: WasmMemory;
  bytes: number;
  brk: number;
  untouched: UntouchedSpan | undefined;
  timer: ReturnType<typeof setTimeout>;
}[] = [];
/** Address of emscripten's break: a number once found, `null` when the search failed. */
let breakAddress: number | null | undefined;

/** Modules the break search ran on: their heap is not as a fresh instance's (see prelude-image.ts). */
const searched = new WeakSet<QuickJSWASMModule>();

/** Records which memory a freshly instantiated module uses; finds the break on the first one. */
export function registerMemory(module: QuickJSWASMModule, memory: WasmMemory): void {
  memoryOf.set(module, memory);
  if (breakAddress === undefined && memory.buffer.byteLength >= SEARCH_MIN_BYTES) {
    searched.add(module);
    breakAddress = findBreakAddress(heapOf(module)) ?? null;
  }
}

/** Whether the break search allocated on this module (its heap then differs from a fresh one's). */
export function breakSearchedOn(module: QuickJSWASMModule): boolean {
  return searched.has(module);
}

/**
 * The current break of a module registered here: every byte its instance touched lies below it.
 * `undefined` when this thread found no break (then nothing is reused).
 */
export function heapBreak(module: QuickJSWASMModule): number | undefined {
  const memory = memoryOf.get(module);
  if (memory === undefined || typeof breakAddress !== 'number') return undefined;
  const brk = new Uint32Array(memory.buffer, breakAddress, 1)[0] ?? 0;
  return brk > breakAddress && brk <= memory.buffer.byteLength ? brk : undefined;
}

/** A wiped spare memory of exactly `bytes`, if one is kept. */
export function takeSpareMemory(bytes: number): WasmMemory | undefined {
  const index = spares.findIndex((spare) => spare.bytes === bytes);
  if (index === -1) return undefined;
  const [spare] = spares.splice(index, 1);
  if (spare === undefined) return undefined;
  clearTimeout(spare.timer);
  wipe(spare.memory.buffer, spare.brk, spare.untouched);
  return spare.memory;
}

/**
 * Keeps the memory of a module nothing will call again (its engine healthy); everything below its
 * break is wiped when it is taken, but `untouched`: a span the caller knows was never written (a
 * block taken from above the break and held since), whose pages are not even read. Returns
 * whether it was kept.
 */
export function recycleMemory(module: QuickJSWASMModule, untouched?: UntouchedSpan): boolean {
  const memory = memoryOf.get(module);
  const brk = heapBreak(module);
  memoryOf.delete(module);
  if (memory === undefined || brk === undefined || brk > MAX_SPARE_BREAK_BYTES) return false;
  const bytes = memory.buffer.byteLength;
  if (spares.length >= MAX_SPARES) {
    const oldest = spares.shift();
    if (oldest !== undefined) clearTimeout(oldest.timer);
  }
  const spare = {
    memory,
    bytes,
    brk,
    untouched,
    timer: setTimeout(() => drop(spare), SPARE_IDLE_MS),
  };
  spare.timer.unref?.();
  spares.push(spare);
  return true;
}

function drop(spare: (typeof spares)[number]): void {
  const index = spares.indexOf(spare);
  if (index !== -1) spares.splice(index, 1);
}

/**
 * Zeroes `[0, end)`, writing only chunks that hold something (untouched pages stay untouched) and
 * skipping the chunks that lie wholly in `untouched`.
 */
function wipe(buffer: ArrayBuffer, end: number, untouched?: UntouchedSpan): void {
  const zeros = new Uint8Array(WIPE_CHUNK_BYTES);
  for (let start = 0; start < end; start += WIPE_CHUNK_BYTES) {
    const length = Math.min(WIPE_CHUNK_BYTES, end - start);
    if (untouched && start >= untouched.start && start + length <= untouched.end) continue;
    const chunk = Buffer.from(buffer, start, length);
    if (chunk.compare(zeros, 0, length) !== 0) chunk.fill(0);
  }
}

function heapOf(module: QuickJSWASMModule): EmscriptenHeap {
  // quickjs-emscripten (pinned at 0.32.0) keeps the emscripten module in a protected field.
  return (module as unknown as { module: EmscriptenHeap }).module;
}

/**
 * Finds the static word that holds the break, on an instance nobody used yet: the one word of the
 * static data that moves past a large allocation, stays when it is freed (the break never goes
 * back: were it to, no word would pass and nothing would be reused), and moves past a second,
 * larger one. `undefined` when not exactly one word behaves so. Only the first `SEARCH_BYTES` are
 * searched (the static data lies there; the stack and the heap follow), and only they are copied.
 */
function findBreakAddress(heap: EmscriptenHeap): number | undefined {
  const words = (): Uint32Array => new Uint32Array(heap.HEAPU8.buffer);
  const first = heap._malloc(16);
  if (first === 0) return undefined;
  heap._free(first);
  const limit = Math.min(first, SEARCH_BYTES) >>> 2;
  const before = words().slice(0, limit);
  const probe = heap._malloc(PROBE_BYTES);
  if (probe === 0) return undefined;
  const passes = (value: number, pointer: number, bytes: number): boolean =>
    value >= pointer + bytes && value <= pointer + bytes + 1024 * 1024;
  const grown = words();
  const moved: number[] = [];
  for (let index = 0; index < limit; index++) {
    const value = grown[index] as number;
    if (value !== before[index] && passes(value, probe, PROBE_BYTES)) moved.push(index);
  }
  const values = moved.map((index) => grown[index] as number);
  heap._free(probe);
  const after = words();
  const found = moved.filter((index, at) => after[index] === values[at]);
  if (found.length !== 1) return undefined;
  const index = found[0] as number;
  const second = heap._malloc(2 * PROBE_BYTES);
  if (second === 0) return undefined;
  const again = words()[index] as number;
  heap._free(second);
  return passes(again, second, 2 * PROBE_BYTES) && words()[index] === again ? index * 4 : undefined;
}
