import type { QuickJSContext } from 'quickjs-emscripten-core';
import { afterEach, describe, expect, it } from 'vitest';
import { BlankEngine } from './blank-engine.js';
import { GlobalKeysWatch } from './global-keys-watch.js';

const MEMORY_BYTES = 32 * 1024 * 1024;

const cleanups: (() => void)[] = [];
async function blankContext(): Promise<QuickJSContext> {
  const { context, runtime, factory } = (await BlankEngine.create(MEMORY_BYTES)).take();
  cleanups.push(() => {
    factory.dispose();
    context.dispose();
    runtime.dispose();
  });
  return context;
}

function run(context: QuickJSContext, code: string): unknown {
  const handle = context.unwrapResult(context.evalCode(code));
  try {
    return context.dump(handle);
  } finally {
    handle.dispose();
  }
}

const keyCount = (context: QuickJSContext) =>
  run(context, 'Reflect.ownKeys(globalThis).length') as number;

describe('GlobalKeysWatch', () => {
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('reads the global keys of this QuickJS build, one live atom per own key', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    const entries = watch.read();
    expect(entries).toBeInstanceOf(Uint32Array);
    const atoms = [...(entries ?? [])].filter((_, index) => index % 2 === 1);
    expect(atoms.filter((atom) => atom !== 0)).toHaveLength(keyCount(context));
    watch.keep(entries, keyCount(context));
    expect(watch.unchanged(watch.read())).toBe(true);
  });

  it('sees a key added, deleted, or deleted and another added, but not a value or flag change', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    run(context, 'globalThis.a = 1');
    watch.keep(watch.read(), keyCount(context));
    run(context, 'a = "two"; Object.defineProperty(globalThis, "a", { enumerable: false })');
    expect(watch.unchanged(watch.read())).toBe(true);
    run(context, 'b = 1');
    expect(watch.unchanged(watch.read())).toBe(false);
    watch.keep(watch.read(), keyCount(context));
    run(context, 'delete globalThis.b');
    expect(watch.unchanged(watch.read())).toBe(false);
    watch.keep(watch.read(), keyCount(context));
    run(context, 'delete globalThis.a; globalThis[Symbol("s")] = 1');
    expect(watch.unchanged(watch.read())).toBe(false);
  });

  it('tells a flag change or a key change since the names were settled, not a value change', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    run(context, 'globalThis.a = 1');
    expect(watch.unchangedSinceSettled(watch.read())).toBe(false);
    watch.settle(watch.read());
    run(context, 'a = {}; Object.defineProperty(globalThis, "a", { value: 2 }); 0');
    expect(watch.unchangedSinceSettled(watch.read())).toBe(true);
    for (const change of [
      'Object.defineProperty(globalThis, "a", { writable: false })',
      'Object.defineProperty(globalThis, "a", { enumerable: false })',
      'Object.defineProperty(globalThis, "a", { get() { return 1 } })',
      'b = 1',
      'delete globalThis.a',
    ]) {
      watch.settle(watch.read());
      run(context, `${change}; 0`);
      expect(watch.unchangedSinceSettled(watch.read()), change).toBe(false);
    }
    watch.settle(undefined);
    expect(watch.unchangedSinceSettled(watch.read())).toBe(false);
  });

  it('keeps no snapshot until told, nor after forgetting one', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    expect(watch.unchanged(watch.read())).toBe(false);
    watch.keep(watch.read(), undefined);
    expect(watch.unchanged(watch.read())).toBe(true);
    watch.forget();
    expect(watch.unchanged(watch.read())).toBe(false);
  });

  it('turns itself off for good when the guest counted other keys than it read', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    watch.keep(watch.read(), keyCount(context) + 1);
    expect(watch.read()).toBeUndefined();
    watch.keep(watch.read(), undefined);
    expect(watch.unchanged(watch.read())).toBe(false);
  });

  it('is off when the library internals it reads are missing', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch({ global: context.global } as unknown as QuickJSContext);
    expect(watch.read()).toBeUndefined();
  });
});
