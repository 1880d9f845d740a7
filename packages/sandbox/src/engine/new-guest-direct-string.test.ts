import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { toStreamedText } from '../context-ops/shared-text.js';
import { guestStringWidth, newGuestStringFromText } from './new-guest-direct-string.js';
import { newGuestStringFromShared } from './new-guest-string.js';

let context: QuickJSContext;

beforeEach(async () => {
  const module = await newQuickJSWASMModuleFromVariant(
    RELEASE_SYNC as unknown as QuickJSSyncVariant,
  );
  context = module.newContext();
});

afterEach(() => {
  context.dispose();
});

/** Length and a rolling hash of every UTF-16 code unit: equal only for the very same text. */
function fingerprint(text: string): [number, number] {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return [text.length, hash];
}

/** The fingerprint the guest computes of the global `s`. */
function guestFingerprint(): [number, number] {
  const code =
    'let h = 0; for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0; [s.length, h]';
  const handle = context.unwrapResult(context.evalCode(code));
  try {
    return context.dump(handle) as [number, number];
  } finally {
    handle.dispose();
  }
}

/** Makes `s` in the guest with `make`, counting the library's own `malloc`s meanwhile. */
function bind(make: () => ReturnType<typeof newGuestStringFromText>) {
  const module = (context as unknown as { module: { _malloc(size: number): number } }).module;
  const malloc = vi.spyOn(module, '_malloc');
  let handle: ReturnType<typeof newGuestStringFromText>;
  try {
    handle = make();
  } finally {
    malloc.mockRestore();
  }
  expect(handle).toBeDefined();
  if (handle === undefined) return { largestMalloc: 0 };
  context.setProp(context.global, 's', handle);
  handle.dispose();
  const largest = Math.max(0, ...malloc.mock.calls.map(([size]) => size));
  return { largestMalloc: largest };
}

const TEXTS: [string, string, 'one-byte' | 'wide'][] = [
  ['ASCII', 'plain log line 42 status=ok\n'.repeat(300), 'one-byte'],
  ['Latin-1 (é, ü, ÿ)', 'café crème brûlée ÿ\n'.repeat(300), 'one-byte'],
  ['emoji and CJK', 'naïve 漢字 😀 done\n'.repeat(300), 'wide'],
  ['lone surrogates and NUL', `a\u0000b lone \ud800 high, \udfff low 😀 é\n`.repeat(200), 'wide'],
];

describe('newGuestStringFromText', () => {
  it.each(TEXTS)(
    'gives the guest exactly the text (%s), with no UTF-8 copy in WASM memory',
    (_, text, width) => {
      expect(guestStringWidth(text)).toBe(width);
      const { largestMalloc } = bind(() => newGuestStringFromText(context, text));
      expect(guestFingerprint()).toEqual(fingerprint(text));
      // The UTF-8 path allocates a buffer of the text's bytes from the host side first.
      expect(largestMalloc).toBeLessThan(text.length);
    },
  );

  it('leaves short text to the library (nothing to gain, and the layout probe needs room)', () => {
    expect(newGuestStringFromText(context, 'short é')).toBeUndefined();
  });
});

describe('newGuestStringFromShared, on the thread holding the text', () => {
  it.each(TEXTS.slice(0, 3))('writes %s straight into the guest string', (_, text) => {
    const shared = toStreamedText(text, { minChars: 1 });
    if (shared === undefined) throw new Error('expected shared text');
    const { largestMalloc } = bind(() => newGuestStringFromShared(context, shared));
    expect(guestFingerprint()).toEqual(fingerprint(text));
    expect(largestMalloc).toBeLessThan(text.length);
  });
});
