import type { QuickJSContext } from 'quickjs-emscripten-core';
import { afterEach, describe, expect, it } from 'vitest';
import { BlankEngine } from './blank-engine.js';
import { TextCall, TextCallFailed } from './text-call.js';

const MEMORY_BYTES = 32 * 1024 * 1024;

/** A blank engine's context with `fn` evaluated in it; everything is freed after the test. */
const cleanups: (() => void)[] = [];
async function contextWith(source: string) {
  const blank = (await BlankEngine.create(MEMORY_BYTES)).take();
  const { context, runtime, factory } = blank;
  const fn = context.unwrapResult(context.evalCode(source));
  const arg = context.unwrapResult(context.evalCode('({ value: "h\\u00e9llo \\u{1F600}" })'));
  cleanups.push(() => {
    arg.dispose();
    fn.dispose();
    factory.dispose();
    context.dispose();
    runtime.dispose();
  });
  return { context, fn, arg };
}

/** The context's public methods only: the library internals `TextCall` looks for are absent. */
function publicOnly(context: QuickJSContext): QuickJSContext {
  return {
    undefined: context.undefined,
    true: context.true,
    false: context.false,
    callFunction: context.callFunction.bind(context),
    getString: context.getString.bind(context),
  } as unknown as QuickJSContext;
}

describe('TextCall', () => {
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it.each([
    ['through the library internals', (context: QuickJSContext) => context],
    ['through the public API when the internals are missing', publicOnly],
  ])('calls a guest function with its argument and reads its string %s', async (_how, view) => {
    const { context, fn, arg } = await contextWith(
      '(function (holder) { "use strict"; return typeof this + ":" + holder.value + ":" + arguments.length })',
    );
    const call = new TextCall(view(context));
    expect(call.call(fn, arg)).toBe('undefined:h\u00e9llo \u{1F600}:1');
    // Repeated calls reuse the one argument list.
    expect(call.call(fn, arg)).toBe('undefined:h\u00e9llo \u{1F600}:1');
    call.dispose();
  });

  it.each([
    ['through the library internals', (context: QuickJSContext) => context],
    ['through the public API when the internals are missing', publicOnly],
  ])('passes a second argument, in order, %s', async (_how, view) => {
    const { context, fn, arg } = await contextWith(
      '(function (holder, flag) { return holder.value + ":" + flag + ":" + arguments.length })',
    );
    const call = new TextCall(view(context));
    expect(call.call(fn, arg, context.true)).toBe('h\u00e9llo \u{1F600}:true:2');
    expect(call.call(fn, arg, context.false)).toBe('h\u00e9llo \u{1F600}:false:2');
    // One argument after two: the count, not the list's leftovers, decides.
    expect(call.call(fn, arg)).toBe('h\u00e9llo \u{1F600}:undefined:1');
    call.dispose();
  });

  it.each([
    ['through the library internals', (context: QuickJSContext) => context],
    ['through the public API when the internals are missing', publicOnly],
  ])('reports a guest function that throws, freeing its error, %s', async (_how, view) => {
    const { context, fn, arg } = await contextWith('(function () { throw new Error("no") })');
    const call = new TextCall(view(context));
    expect(() => call.call(fn, arg)).toThrow(TextCallFailed);
    call.dispose();
    // A leaked error handle would make the runtime's teardown (in afterEach) abort.
  });
});
