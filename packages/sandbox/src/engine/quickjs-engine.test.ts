import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTEXT_HELPER_NAMES } from '../context-ops/context-scanner.js';
import { resolveLimits } from '../sandbox-options.js';
import { QuickJsEngine } from './quickjs-engine.js';

const BLOCKS = [
  '1',
  'throw new Error("x")',
  'syntax error(',
  'while (true) {}',
  'await new Promise(() => {})',
  'slow(); slow(); 1',
  'await slow()',
  'FINAL_VAR("nope")',
  'FINAL({ a: 1 })',
  'print({ a: [1, { b: new Map([[1, 2]]) }] })',
  'await grep("needle")',
  'await grep("(")',
  'Promise.reject(new Error("unhandled")); 2',
  'const big = []; while (true) big.push("x".repeat(1000) + big.length)',
  'new Proxy({}, {})',
  'new Proxy({}, { ownKeys() { for (;;) {} } })',
  'throw { get message() { slow(); return "m" } }',
  'FINAL("x".repeat(2e6))',
  'await chunk(1, { max: 2 })',
  '(async () => { for (;;) { await null } })(); for (;;) {}',
  'Object.defineProperty(Array.prototype, "0", { set() { throw 1 }, configurable: true }); print([1])',
  'var trap = new Proxy({}, { ownKeys() { Promise.resolve().then(() => 1); return [] } }); 1',
];

describe('QuickJsEngine', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('frees every handle: disposing after every kind of block trips no leak assertion', async () => {
    // A leaked handle makes QuickJS's runtime teardown throw an abort RuntimeError.
    const engine = await QuickJsEngine.create(
      {
        contexts: ['abc\nneedle'],
        meta: {},
        functionNames: ['slow'],
        helperNames: [...CONTEXT_HELPER_NAMES],
        limits: resolveLimits({ cpuSliceMs: 200, memoryBytes: 64 * 1024 * 1024 }, 'inline'),
      },
      (_name, _args, signal) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve('1'), 30);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        }),
    );
    for (const code of [...BLOCKS, ...BLOCKS]) await engine.execute(code);
    engine.getVariable('context');
    engine.getVariable('trap');
    expect(() => engine.getVariable('context', { maxChars: 3 })).toThrow(
      expect.objectContaining({ code: 'sandbox.too_large' }),
    );
    engine.listVariables();
    engine.setVariable('history', [1]);
    expect(engine.poisonReason).toBeUndefined();
    expect(() => engine.disposeStrictly()).not.toThrow();
  });
});

describe('QuickJsEngine.dispose', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('drops the instance whole: QuickJS is not asked to free its objects one by one', async () => {
    const { QuickJSContext, QuickJSRuntime } = await import('quickjs-emscripten-core');
    const engine = await QuickJsEngine.create(
      {
        contexts: ['abc'],
        meta: {},
        functionNames: [],
        helperNames: [],
        limits: resolveLimits({ memoryBytes: 64 * 1024 * 1024 }, 'inline'),
      },
      async () => '1',
    );
    await engine.execute('const kept = [1, 2, 3]; print(kept.length)');
    const freedRuntime = vi.spyOn(QuickJSRuntime.prototype, 'dispose');
    const freedContext = vi.spyOn(QuickJSContext.prototype, 'dispose');
    engine.dispose();
    expect(freedRuntime).not.toHaveBeenCalled();
    expect(freedContext).not.toHaveBeenCalled();
    await expect(engine.execute('1')).rejects.toMatchObject({ code: 'sandbox.disposed' });
  });
});
