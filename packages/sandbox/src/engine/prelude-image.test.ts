import type { QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { describe, expect, it } from 'vitest';
import { resolveLimits } from '../sandbox-options.js';
import { BlankEngine } from './blank-engine.js';
import { GUEST_PRELUDE } from './guest-prelude.generated.js';
import { loadQuickJs } from './load-quickjs.js';
import { ImageRecorder, restoreImage } from './prelude-image.js';
import { QuickJsEngine } from './quickjs-engine.js';
import { heapBreak } from './spare-memory.js';

// Sizes no other test file uses: this file's thread takes its own images of them. The first
// large instance of a thread is the one the break search allocates on: never imaged.
const SEARCH_BYTES = 36 * 1024 * 1024;
const MIB = 1024 * 1024;

function bytesOf(module: QuickJSWASMModule): Uint8Array {
  return (module as unknown as { module: { HEAPU8: Uint8Array } }).module.HEAPU8;
}

function pointerOf(blank: BlankEngine): number {
  return (blank.context as unknown as { ctx: { value: number } }).ctx.value;
}

/** Offsets (below `end`) where two memories differ. */
function differences(a: Uint8Array, b: Uint8Array, end: number): number[] {
  const found: number[] = [];
  for (let offset = 0; offset < end; offset++) if (a[offset] !== b[offset]) found.push(offset);
  return found;
}

async function engineOn(blank: BlankEngine): Promise<QuickJsEngine> {
  const limits = resolveLimits({ memoryBytes: blank.memoryBytes }, 'inline');
  return QuickJsEngine.create(
    { contexts: ['a context'], meta: {}, functionNames: [], helperNames: [], limits },
    async () => undefined,
    { blank },
  );
}

/**
 * A blank engine that evaluated the prelude (the first of its size on this thread) and one
 * started from the image it left.
 */
async function evaluatedAndRestored(memoryBytes: number): Promise<[BlankEngine, BlankEngine]> {
  (await BlankEngine.create(SEARCH_BYTES)).dispose();
  const evaluated = await BlankEngine.create(memoryBytes);
  const restored = await BlankEngine.create(memoryBytes);
  expect([evaluated.restored, restored.restored]).toEqual([false, true]);
  return [evaluated, restored];
}

describe('prelude images', () => {
  it('starts a blank engine from the image: its memory is the evaluated one byte for byte, but for the random seed', async () => {
    const [evaluated, restored] = await evaluatedAndRestored(40 * MIB);
    const end = Math.max(heapBreak(evaluated.module) ?? 0, heapBreak(restored.module) ?? 0);
    expect(end).toBeGreaterThan(0);
    const changed = differences(bytesOf(evaluated.module), bytesOf(restored.module), end);
    // Only the context's `Math.random` state (one 64-bit word of the context) may differ.
    expect(changed.length).toBeGreaterThan(0);
    const seedWord = changed[0] as number;
    expect(seedWord - pointerOf(evaluated)).toBeGreaterThanOrEqual(0);
    expect(changed.every((offset) => offset - seedWord < 8)).toBe(true);
    // And the rest of memory, above the break, holds nothing in either.
    const untouched = bytesOf(restored.module).subarray(end);
    expect(untouched.every((byte) => byte === 0)).toBe(true);
    evaluated.dispose();
    restored.dispose();
  });

  it('runs blocks on a restored engine like on an evaluated one, and frees it without a leak', async () => {
    const [evaluated, restored] = await evaluatedAndRestored(42 * MIB);
    const outputs: string[][] = [];
    for (const blank of [evaluated, restored]) {
      const engine = await engineOn(blank);
      const seen: string[] = [];
      for (const code of [
        'const xs = [1, 2, 3].map((n) => n * 2); print(xs)',
        'context.length',
        'typeof installScaffold + " " + typeof hostCall',
        'FINAL_VAR("xs")',
        'throw new TypeError("no")',
      ]) {
        const result = await engine.execute(code);
        seen.push(`${result.stdout}|${result.error?.message ?? ''}|${result.finalAnswer ?? ''}`);
      }
      outputs.push(seen);
      // QuickJS aborts on teardown when any object is still referenced.
      expect(() => engine.disposeStrictly()).not.toThrow();
    }
    expect(outputs[1]).toEqual(outputs[0]);
  });

  it('seeds Math.random afresh in every restored engine', async () => {
    const [evaluated, first] = await evaluatedAndRestored(44 * MIB);
    evaluated.dispose();
    const second = await BlankEngine.create(44 * MIB);
    expect(second.restored).toBe(true);
    const draws: string[] = [];
    for (const blank of [first, second]) {
      const engine = await engineOn(blank);
      draws.push((await engine.execute('[Math.random(), Math.random()].join(" ")')).stdout);
      engine.dispose();
    }
    expect(draws[0]).not.toBe(draws[1]);
  });

  it('leaves an instance whose runtime is not where the image had it as it was, for the usual path', async () => {
    const memoryBytes = 46 * MIB;
    const [evaluated, restored] = await evaluatedAndRestored(memoryBytes);
    restored.dispose();
    const module = await loadQuickJs(memoryBytes);
    const runtime = module.newRuntime();
    const before = Buffer.from(bytesOf(module).subarray(0, heapBreak(module)));
    const image = {
      memoryBytes,
      runtimePointer: 8,
      contextPointer: pointerOf(evaluated),
      factoryPointer: evaluated.factory.value as unknown as number,
      scratchPointer: 0,
      seedOffset: 0,
      pages: Uint32Array.of(0),
      bytes: new Uint8Array(4096).fill(1),
      clearPages: new Uint32Array(0),
    };
    expect(restoreImage(image, module, runtime)).toBeUndefined();
    expect(Buffer.from(bytesOf(module).subarray(0, heapBreak(module))).equals(before)).toBe(true);
    runtime.dispose();
    evaluated.dispose();
  });

  it('clears a page the new instance wrote that holds nothing in the image', async () => {
    const memoryBytes = 48 * MIB;
    (await BlankEngine.create(SEARCH_BYTES)).dispose();
    const module = await loadQuickJs(memoryBytes);
    const runtime = module.newRuntime();
    const recorder = new ImageRecorder(module, memoryBytes);
    recorder.afterRuntime();
    const context = runtime.newContext();
    recorder.afterContext(context);
    const factory = context.unwrapResult(context.evalCode(GUEST_PRELUDE, 'prelude.js'));
    const image = recorder.take(runtime, context, factory);
    if (image === undefined) throw new Error('no image taken');
    // The page holding the new runtime's structure: the fresh instance wrote it.
    const page = image.runtimePointer - (image.runtimePointer % 4096);
    const at = image.pages.indexOf(page);
    expect(at).toBeGreaterThanOrEqual(0);
    // The same image twice: once declaring that page empty, once holding it as zeros. The
    // restore itself may write into the page afterwards (freeing its scratch buffer writes an
    // allocator header wherever the allocator put it), so the page is compared between the two
    // rather than with zeros: clearing must leave exactly what copying zeros leaves.
    const pages = Uint32Array.from([...image.pages].filter((start) => start !== page));
    const bytes = new Uint8Array(pages.length * 4096);
    pages.forEach((start, index) => {
      const from = image.pages.indexOf(start) * 4096;
      bytes.set(image.bytes.subarray(from, from + 4096), index * 4096);
    });
    const zeroed = image.bytes.slice();
    zeroed.fill(0, at * 4096, at * 4096 + 4096);
    const restoredPage = async (
      restore: (fresh: QuickJSWASMModule, rt: QuickJSRuntime) => void,
    ) => {
      const fresh = await loadQuickJs(memoryBytes);
      const freshRuntime = fresh.newRuntime();
      freshRuntime.setMaxStackSize(128 * 1024);
      const before = bytesOf(fresh).slice(page, page + 4096);
      restore(fresh, freshRuntime);
      return { before, after: bytesOf(fresh).slice(page, page + 4096) };
    };
    const cleared = await restoredPage((fresh, rt) =>
      restoreImage({ ...image, pages, bytes, clearPages: Uint32Array.of(page) }, fresh, rt),
    );
    const copied = await restoredPage((fresh, rt) =>
      restoreImage({ ...image, bytes: zeroed }, fresh, rt),
    );
    expect(cleared.before.some((byte) => byte !== 0)).toBe(true);
    expect(differences(cleared.after, cleared.before, 4096).length).toBeGreaterThan(0);
    expect(differences(cleared.after, copied.after, 4096)).toEqual([]);
    factory.dispose();
    context.dispose();
    runtime.dispose();
  });
});
