import type { JsonValue, ReplEnvironment } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { repl, testRLM } from '../testing/rlm-test-kit.js';
import { MetaRefresh } from './meta-refresh.js';

const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
const SHOW = 'print(JSON.stringify(__rlm))';

/** The first line each turn's block printed, turn by turn (from the next request's output message). */
async function printed(
  codes: string[],
  options: { budget?: { maxTokens: number }; isolation?: 'inline' | 'worker' } = {},
) {
  const model = scriptedModel([
    ...codes.map((code) => ({ text: repl(code), usage })),
    { text: 'FINAL(ok)', usage },
  ]);
  await testRLM({ model, maxIterations: 10, generateId: () => 'run-1', ...options }).completion(
    'ctx',
  );
  return codes.map(
    (_, turn) => model.requests[turn + 1]!.messages.at(-2)!.content.split('\n')[1] ?? '',
  );
}

describe('__rlm when the first turns do not read it', () => {
  it('is the metadata of the turn that reads it, budget included', async () => {
    const budget = { maxTokens: 100_000 };
    const always = await printed([SHOW, SHOW, SHOW, SHOW], { budget });
    const later = await printed(['x = 1', 'y = 2', 'print(x + y)', SHOW], { budget });
    expect(later[3]).toBe(always[3]);
    expect(JSON.parse(later[3]!)).toMatchObject({
      iteration: 3,
      budget: { tokens: 100_000 - 3 * 110 - 110 },
    });
  });

  it('is the metadata of the turn that reads it in a worker sandbox too', async () => {
    const out = await printed(['x = 1', 'y = 2', 'print(__rlm.iteration)'], {
      isolation: 'worker',
    });
    expect(out[2]).toBe('2');
  });

  it('is current in a function defined earlier, called later without naming it', async () => {
    const out = await printed([
      'function turn() { return __rlm.iteration }',
      'x = 1',
      'print(turn())',
      'print(turn())',
    ]);
    expect(out.slice(2)).toEqual(['2', '3']);
  });

  it('is current when reached through the global object or code built from strings', async () => {
    const out = await printed([
      'x = 1',
      'print(globalThis["__" + "r" + "lm"].iteration)',
      'y = 1',
      'print((function () { return this })()["__r" + "lm"].iteration)',
      'z = 1',
      'print(eval("__r" + "lm.iteration"))',
      'w = 1',
      'print(new Function("return __r" + "lm.iteration")())',
      'v = 1',
      'print(\\u005f\\u005frlm.iteration)',
    ]);
    expect(out.filter((_, turn) => turn % 2 === 1)).toEqual(['1', '3', '5', '7', '9']);
  });

  it('is current for a FINAL_VAR in the text, with or without code in that turn', async () => {
    const answer = async (responses: string[]) => {
      const model = scriptedModel(responses);
      const result = await testRLM({ model, maxIterations: 10 }).completion('ctx');
      return JSON.parse(result.answer!) as { iteration: number };
    };
    expect(await answer([repl('x = 1'), repl('y = 1'), 'FINAL_VAR(__rlm)'])).toMatchObject({
      iteration: 1,
    });
    expect(await answer([repl('x = 1'), `${repl('y = 1')}\nFINAL_VAR(__rlm)`])).toMatchObject({
      iteration: 1,
    });
  });
});

/** A sandbox that records what each call set. */
function recordingSandbox(): { sandbox: ReplEnvironment; set: JsonValue[] } {
  const set: JsonValue[] = [];
  const sandbox: ReplEnvironment = {
    execute: async () => {
      throw new Error('not used');
    },
    getVariable: async () => null,
    setVariable: async (_name, value) => {
      set.push(value);
    },
    listVariables: async () => [],
    dispose: async () => {},
  };
  return { sandbox, set };
}

describe('MetaRefresh', () => {
  const meta = (iteration: number) => ({ iteration });

  it('lazily gives __rlm only to code that may read it, then with every turn', () => {
    const refresh = new MetaRefresh({ eager: false });
    refresh.next(meta(1));
    expect(refresh.variablesFor('x = 1 + 1; print(x)')).toBeUndefined();
    expect(refresh.variablesFor('await rlm_query("a")')).toBeUndefined();
    refresh.next(meta(2));
    expect(refresh.variablesFor('print(__rlm.iteration)')).toEqual({ __rlm: meta(2) });
    expect(refresh.variablesFor('print(__rlm.iteration)')).toBeUndefined();
    refresh.next(meta(3));
    expect(refresh.variablesFor('x = 1')).toEqual({ __rlm: meta(3) });
    expect(refresh.variablesFor('x = 2')).toBeUndefined();
  });

  it.each([
    '__rlm',
    '"__" + "rlm"',
    'globalThis',
    'global',
    'this',
    'eval("x")',
    '(0, eval)',
    'Function("return 1")',
    'f.constructor',
    'import("x")',
    '\\u005f',
    '// rlm in a comment',
  ])('counts %s as a way to read __rlm', (code) => {
    const refresh = new MetaRefresh({ eager: false });
    refresh.next(meta(1));
    expect(refresh.variablesFor(code)).toEqual({ __rlm: meta(1) });
  });

  it('eagerly gives each turn its metadata with its first block, as before', () => {
    const refresh = new MetaRefresh({ eager: true });
    expect(refresh.variablesFor('x = 1')).toBeUndefined();
    refresh.next(meta(1));
    expect(refresh.variablesFor('x = 1')).toEqual({ __rlm: meta(1) });
    expect(refresh.variablesFor('x = 2')).toBeUndefined();
    refresh.next(meta(2));
    expect(refresh.variablesFor('x = 3')).toEqual({ __rlm: meta(2) });
  });

  it('brings __rlm up to date before the host reads a variable that could be it', async () => {
    const refresh = new MetaRefresh({ eager: false });
    const { sandbox, set } = recordingSandbox();
    const reading = refresh.reading(sandbox);
    refresh.next(meta(1));
    await reading.getVariable('total');
    expect(set).toEqual([]);
    await reading.getVariable('__rlm');
    await reading.getVariable('__rlm');
    expect(set).toEqual([meta(1)]);
    refresh.next(meta(2));
    expect(refresh.variablesFor('x = 1')).toBeUndefined();
    await reading.getVariable('__rlm');
    expect(set).toEqual([meta(1), meta(2)]);
  });

  it('leaves the sandbox as it is in eager mode', () => {
    const { sandbox } = recordingSandbox();
    expect(new MetaRefresh({ eager: true }).reading(sandbox)).toBe(sandbox);
  });
});
