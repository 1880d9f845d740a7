import { Worker } from 'node:worker_threads';
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import fc from 'fast-check';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSContext,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type StreamedText, toStreamedText } from '../context-ops/shared-text.js';
import { scriptUrl } from '../script-url.js';
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

// Long enough that the few kilobytes the blank's fill string takes are well below the text's size.
const TEXTS: [string, string, 'one-byte' | 'wide'][] = [
  ['ASCII', 'plain log line 42 status=ok\n'.repeat(3000), 'one-byte'],
  ['Latin-1 (é, ü, ÿ)', 'café crème brûlée ÿ\n'.repeat(3000), 'one-byte'],
  ['emoji and CJK', 'naïve 漢字 😀 done\n'.repeat(3000), 'wide'],
  ['lone surrogates and NUL', `a\u0000b lone \ud800 high, \udfff low 😀 é\n`.repeat(2000), 'wide'],
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
  it.each(TEXTS.slice(1, 3))('writes %s straight into the guest string', (_, text) => {
    const shared = toStreamedText(text, { minChars: 1 });
    if (shared === undefined) throw new Error('expected shared text');
    const { largestMalloc } = bind(() => newGuestStringFromShared(context, shared));
    expect(guestFingerprint()).toEqual(fingerprint(text));
    expect(largestMalloc).toBeLessThan(text.length);
  });
});

/**
 * Binds `text`, streamed from this thread, in a fresh context on a worker (a reader blocks, so
 * never on the thread serving the text); the guest's fingerprint of it and the library's largest
 * `malloc` meanwhile.
 */
async function bindInWorker(text: string) {
  const shared = toStreamedText(text, { minChars: 1, pieceBytes: 64 });
  if (shared === undefined) throw new Error('expected shared text');
  const strings = scriptUrl('./new-guest-string.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     (async () => {
       const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default;
       const core = await import('quickjs-emscripten-core');
       const { newGuestStringFromShared } = await import(${JSON.stringify(strings)});
       const context = (await core.newQuickJSWASMModuleFromVariant(variant)).newContext();
       const original = context.module._malloc;
       let largest = 0;
       context.module._malloc = (size) => { largest = Math.max(largest, size); return original(size); };
       const handle = newGuestStringFromShared(context, workerData.shared);
       context.module._malloc = original;
       context.setProp(context.global, 's', handle);
       handle.dispose();
       const result = context.unwrapResult(context.evalCode(workerData.code));
       parentPort.postMessage({ fingerprint: context.dump(result), largest });
       result.dispose();
     })().catch((error) => parentPort.postMessage({ error: String(error && error.stack) }));`,
    {
      eval: true,
      workerData: {
        shared,
        code: 'let h = 0; for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0; [s.length, h]',
      },
    },
  );
  try {
    const reply = await new Promise<{
      fingerprint: [number, number];
      largest: number;
      error?: string;
    }>((resolve, reject) => worker.once('message', resolve).once('error', reject));
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply;
  } finally {
    await worker.terminate();
  }
}

describe('newGuestStringFromShared, on a thread reading the text piece by piece', () => {
  it.each(TEXTS.slice(1, 3))('writes %s straight into the guest string', async (_, text) => {
    const { fingerprint: guest, largest } = await bindInWorker(text);
    expect(guest).toEqual(fingerprint(text));
    expect(largest).toBeLessThan(text.length);
  });
});

/**
 * A worker that binds each streamed text it is sent in a fresh context and answers the guest's
 * fingerprint of it: one worker for many texts (starting one per text would dominate the test).
 */
function bindingWorker(): {
  bind(shared: StreamedText): Promise<[number, number]>;
  close(): Promise<number>;
} {
  const strings = scriptUrl('./new-guest-string.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const ready = (async () => {
       const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default;
       const core = await import('quickjs-emscripten-core');
       const { newGuestStringFromShared } = await import(${JSON.stringify(strings)});
       return { module: await core.newQuickJSWASMModuleFromVariant(variant), newGuestStringFromShared };
     })();
     parentPort.on('message', async (shared) => {
       try {
         const { module, newGuestStringFromShared } = await ready;
         const context = module.newContext();
         const handle = newGuestStringFromShared(context, shared);
         if (handle === undefined) throw new Error('the direct path did not apply');
         context.setProp(context.global, 's', handle);
         handle.dispose();
         const result = context.unwrapResult(context.evalCode(${JSON.stringify(
           'let h = 0; for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0; [s.length, h]',
         )}));
         parentPort.postMessage({ fingerprint: context.dump(result) });
         result.dispose();
         context.dispose();
       } catch (error) {
         parentPort.postMessage({ error: String(error && error.stack) });
       }
     });`,
    { eval: true },
  );
  return {
    bind: (shared) =>
      new Promise((resolve, reject) => {
        worker.once('message', (reply: { fingerprint: [number, number]; error?: string }) =>
          reply.error === undefined ? resolve(reply.fingerprint) : reject(new Error(reply.error)),
        );
        worker.postMessage(shared);
      }),
    close: () => worker.terminate(),
  };
}

/** One UTF-16 code unit, drawn to hit the edges: Latin-1's, NUL, surrogates alone and in pairs. */
const codeUnit = fc.oneof(
  fc.constantFrom('\u0000', '\u007f', '\u0080', '\u00ff', 'é', '\n', 'a'),
  fc.constantFrom('\u0100', '\ud800', '\udbff', '\udc00', '\udfff', '\uffff', '😀', '漢'),
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
);
const latin1Unit = fc.integer({ min: 0, max: 0xff }).map((code) => String.fromCharCode(code));

describe('newGuestStringFromShared, any text, any piece size (property)', () => {
  it('gives the guest exactly the code units of the text, one-byte and wide', async () => {
    const binder = bindingWorker();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string({ unit: latin1Unit, minLength: 64, maxLength: 400 }),
            fc.string({ unit: codeUnit, minLength: 64, maxLength: 400 }),
          ),
          fc.integer({ min: 2, max: 48 }),
          async (text, pieceBytes) => {
            const shared = toStreamedText(text, { minChars: 1, pieceBytes });
            if (shared === undefined) throw new Error('expected streamed text');
            expect(shared.wide).toBe(/[\u0100-\uffff]/.test(text));
            expect(await binder.bind(shared)).toEqual(fingerprint(text));
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await binder.close();
    }
  });
});
