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

/** One block's end as the scaffold goes through it: what the watch said before, then the guest's count. */
function finish(watch: GlobalKeysWatch, context: QuickJSContext) {
  const verdict = watch.beforeFinish();
  watch.afterFinish(keyCount(context), true);
  return verdict;
}

describe('GlobalKeysWatch', () => {
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('reads the global keys of this QuickJS build, and knows them once the guest counted them', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    expect(finish(watch, context)).toEqual({ keysUnchanged: false, namesSettled: false });
    // A wrong count would have turned the watch off.
    expect(finish(watch, context)).toEqual({ keysUnchanged: true, namesSettled: true });
  });

  it('sees a key added, deleted, or deleted and another added, but not a value or flag change', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    run(context, 'globalThis.a = 1');
    finish(watch, context);
    run(context, 'a = "two"; Object.defineProperty(globalThis, "a", { enumerable: false }); 0');
    expect(finish(watch, context).keysUnchanged).toBe(true);
    for (const change of ['b = 1', 'delete globalThis.b', 'delete globalThis.a; c = 1']) {
      run(context, `${change}; 0`);
      expect(finish(watch, context).keysUnchanged, change).toBe(false);
      expect(finish(watch, context).keysUnchanged, change).toBe(true);
    }
    run(context, 'globalThis[Symbol("s")] = 1; 0');
    expect(finish(watch, context).keysUnchanged).toBe(false);
  });

  it('tells a flag or key change since the names were settled, not a value change', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    run(context, 'globalThis.a = 1');
    finish(watch, context);
    run(context, 'a = {}; Object.defineProperty(globalThis, "a", { value: 2 }); 0');
    expect(finish(watch, context).namesSettled).toBe(true);
    for (const change of [
      'Object.defineProperty(globalThis, "a", { enumerable: false })',
      'Object.defineProperty(globalThis, "a", { get() { return 1 } })',
      'Object.defineProperty(globalThis, "a", { configurable: false })',
      'b = 1',
      'delete globalThis.b',
    ]) {
      run(context, `${change}; 0`);
      expect(finish(watch, context).namesSettled, change).toBe(false);
      expect(finish(watch, context).namesSettled, change).toBe(true);
    }
  });

  it('keeps nothing the guest was uncertain about, nor names it could not all put back', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    finish(watch, context);
    watch.beforeFinish();
    watch.afterFinish('uncertain', false);
    expect(watch.beforeFinish()).toEqual({ keysUnchanged: false, namesSettled: false });
    watch.afterFinish('reused', true);
    expect(watch.beforeFinish()).toEqual({ keysUnchanged: true, namesSettled: true });
    watch.afterFinish('reused', true);
    watch.forget();
    expect(watch.beforeFinish()).toEqual({ keysUnchanged: false, namesSettled: true });
    // A call that failed never reaches afterFinish: nothing is known afterwards.
    expect(watch.beforeFinish()).toEqual({ keysUnchanged: false, namesSettled: false });
  });

  it('turns itself off for good when the guest counted other keys than it read', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch(context);
    watch.beforeFinish();
    watch.afterFinish(keyCount(context) + 1, true);
    finish(watch, context);
    expect(finish(watch, context)).toEqual({ keysUnchanged: false, namesSettled: false });
  });

  it('is off when the library internals it reads are missing', async () => {
    const context = await blankContext();
    const watch = new GlobalKeysWatch({ global: context.global } as unknown as QuickJSContext);
    finish(watch, context);
    expect(finish(watch, context)).toEqual({ keysUnchanged: false, namesSettled: false });
  });
});
