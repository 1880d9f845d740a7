import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveLimits } from '../sandbox-options.js';
import { BlankEngine } from './blank-engine.js';
import { HeapBallast } from './heap-ballast.js';
import { QuickJsEngine } from './quickjs-engine.js';
import { heapBreak, takeSpareMemory } from './spare-memory.js';

const SECRET = 'SECRET-7f3a9c-';
// A size no other test file uses, so the spare this file leaves is the one it takes.
const memoryBytes = 40 * 1024 * 1024;
const limits = resolveLimits({ memoryBytes }, 'inline');

function bufferOf(module: QuickJSWASMModule): ArrayBuffer {
  return (module as unknown as { module: { HEAPU8: Uint8Array } }).module.HEAPU8
    .buffer as ArrayBuffer;
}

async function engineOn(blank: BlankEngine): Promise<QuickJsEngine> {
  return QuickJsEngine.create(
    { contexts: [], meta: {}, functionNames: [], helperNames: [], limits },
    async () => undefined,
    { blank },
  );
}

describe('spare memories', () => {
  it('hands the next engine the memory of a disposed one, wiped of everything it held', async () => {
    const first = await BlankEngine.create(memoryBytes);
    const memory = bufferOf(first.module);
    const engine = await engineOn(first);
    engine.setVariable('fromHost', SECRET.repeat(100));
    const result = await engine.execute(`var fromGuest = ${JSON.stringify(SECRET)}.repeat(200); 1`);
    expect(result.error).toBeNull();
    expect(Buffer.from(memory).indexOf(SECRET)).not.toBe(-1);
    engine.dispose();

    const second = await BlankEngine.create(memoryBytes);
    expect(bufferOf(second.module)).toBe(memory);
    expect(Buffer.from(memory).indexOf(SECRET)).toBe(-1);
    const next = await engineOn(second);
    const fresh = await next.execute('typeof fromGuest + " " + typeof fromHost');
    expect(fresh.stdout).toBe("'undefined undefined'\n");
    next.dispose();
  });

  it('wipes every byte of a spare when the next engine takes it, not when its engine is disposed', async () => {
    const first = await BlankEngine.create(memoryBytes);
    const memory = bufferOf(first.module);
    const engine = await engineOn(first);
    await engine.execute(`var fromGuest = ${JSON.stringify(SECRET)}.repeat(200); 1`);
    engine.dispose();
    // A process whose only sandbox this was never pays for the wipe.
    expect(Buffer.from(memory).indexOf(SECRET)).not.toBe(-1);
    const spare = takeSpareMemory(memory.byteLength);
    expect(spare?.buffer).toBe(memory);
    // Every byte, not just the ones searched for: the memory is as a new one would be.
    expect(Buffer.from(memory).equals(Buffer.alloc(memory.byteLength))).toBe(true);
  });

  it('gives a fresh memory after an engine that ran out of memory', async () => {
    const first = await BlankEngine.create(memoryBytes);
    const memory = bufferOf(first.module);
    const engine = await engineOn(first);
    const result = await engine.execute(
      'const parts = []; for (;;) parts.push("x".repeat(1e6) + parts.length)',
    );
    expect(result.error?.code).toBe('sandbox.out_of_memory');
    engine.dispose();
    const second = await BlankEngine.create(memoryBytes);
    expect(bufferOf(second.module)).not.toBe(memory);
    second.dispose();
  });

  describe('the heap ballast', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('is not read by the wipe while it is the block first taken: nothing wrote it', async () => {
      const first = await BlankEngine.create(memoryBytes);
      const memory = bufferOf(first.module);
      const engine = await engineOn(first);
      expect((await engine.execute('var kept = "k".repeat(1000); 1')).error).toBeNull();
      const chunks = Math.ceil((heapBreak(first.module) ?? 0) / (64 * 1024));
      engine.dispose();
      // The wipe runs when the next engine takes the spare.
      const compared = vi.spyOn(Buffer.prototype, 'compare');
      expect(takeSpareMemory(memory.byteLength)?.buffer).toBe(memory);
      // The ballast (256 KiB for this memory size) spans at least three whole 64 KiB chunks.
      expect(compared.mock.calls.length).toBeLessThanOrEqual(chunks - 3);
      vi.restoreAllMocks();
      expect(Buffer.from(memory).equals(Buffer.alloc(memory.byteLength))).toBe(true);
    });

    it('stops vouching for its block once it was let go, even when it takes one again', async () => {
      const blank = await BlankEngine.create(memoryBytes);
      const ballast = new HeapBallast(blank.module, 256 * 1024);
      expect(ballast.firstHold()).toBeUndefined();
      expect(ballast.hold()).toBe(true);
      const first = ballast.firstHold();
      expect(first?.end).toBe((first?.start ?? 0) + 256 * 1024);
      ballast.release();
      expect(ballast.hold()).toBe(true);
      expect(ballast.firstHold()).toBeUndefined();
      ballast.release();
      blank.dispose();
    });

    it('is wiped like the rest once it was let go (a thrown error lends it to the scaffold)', async () => {
      const first = await BlankEngine.create(memoryBytes);
      const memory = bufferOf(first.module);
      const engine = await engineOn(first);
      const thrown = await engine.execute(`throw new Error(${JSON.stringify(SECRET)}.repeat(50))`);
      expect(thrown.error?.message).toContain(SECRET);
      const filled = await engine.execute(
        `var parts = []; for (let i = 0; i < 400; i++) parts.push(${JSON.stringify(SECRET)}.repeat(40) + i); 1`,
      );
      expect(filled.error).toBeNull();
      engine.dispose();
      expect(takeSpareMemory(memory.byteLength)?.buffer).toBe(memory);
      expect(Buffer.from(memory).equals(Buffer.alloc(memory.byteLength))).toBe(true);
    });
  });
});
