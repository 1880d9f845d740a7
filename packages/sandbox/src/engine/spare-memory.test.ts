import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { describe, expect, it } from 'vitest';
import { resolveLimits } from '../sandbox-options.js';
import { BlankEngine } from './blank-engine.js';
import { QuickJsEngine } from './quickjs-engine.js';
import { takeSpareMemory } from './spare-memory.js';

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
});
