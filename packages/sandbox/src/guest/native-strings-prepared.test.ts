import type { QuickJSContext } from 'quickjs-emscripten-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../create-sandbox.js';
import { BlankEngine } from '../engine/blank-engine.js';
import type { Sandbox } from '../sandbox.js';

const MEMORY_BYTES = 32 * 1024 * 1024;
/** The built-ins native-strings.ts replaces, as guest expressions. */
const REPLACED = [
  'String.prototype.indexOf',
  'String.prototype.lastIndexOf',
  'String.prototype.includes',
  'RegExp.prototype.exec',
  'RegExp.prototype[Symbol.match]',
  'RegExp.prototype[Symbol.split]',
  'RegExp.prototype[Symbol.replace]',
];
const SOURCES = `[${REPLACED.map((method) => `String(${method})`).join(', ')}]`;
const isBuiltIn = (source: string) => source.includes('[native code]');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function evaluate(context: QuickJSContext, code: string): unknown {
  const handle = context.unwrapResult(context.evalCode(code));
  try {
    return context.dump(handle);
  } finally {
    handle.dispose();
  }
}

async function sandbox(nativeStringMinChars?: number): Promise<Sandbox> {
  const opened = await createSandbox({
    isolation: 'inline',
    ...(nativeStringMinChars === undefined ? {} : { limits: { nativeStringMinChars } }),
  });
  cleanups.push(() => opened.dispose());
  return opened;
}

describe('native string methods set up with the prelude', () => {
  it('are in place in a blank engine, before any sandbox installs its settings', async () => {
    const { context, runtime, factory } = (await BlankEngine.create(MEMORY_BYTES)).take();
    cleanups.push(() => {
      factory.dispose();
      context.dispose();
      runtime.dispose();
    });
    const sources = evaluate(context, SOURCES) as string[];
    expect(sources.filter(isBuiltIn)).toEqual([]);
    // Without a sandbox's settings every one of them runs its built-in.
    expect(
      evaluate(context, "['abcb'.indexOf('b'), 'abcb'.lastIndexOf('b'), /c/.exec('abc').index]"),
    ).toEqual([1, 3, 2]);
  });

  it("are the engine's own built-ins again in a sandbox that turns them off", async () => {
    const off = await sandbox(2 ** 30);
    const result = await off.execute(
      `print(JSON.stringify(${SOURCES}.map((source) => source.includes('[native code]'))))\n` +
        "const d = Object.getOwnPropertyDescriptor(String.prototype, 'indexOf')\n" +
        'print(d.writable, d.enumerable, d.configurable, String.prototype.indexOf.length)',
    );
    expect(result.error).toBeNull();
    expect(result.stdout).toBe(`${JSON.stringify(REPLACED.map(() => true))}\ntrue false true 1\n`);
    const on = await sandbox();
    const sources = JSON.parse((await on.execute(`print(JSON.stringify(${SOURCES}))`)).stdout);
    expect((sources as string[]).filter(isBuiltIn)).toEqual([]);
  });
});
