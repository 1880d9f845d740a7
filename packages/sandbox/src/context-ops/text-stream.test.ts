import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { scriptUrl } from '../script-url.js';
import { isSharedText, readSharedText, type StreamedText, toStreamedText } from './shared-text.js';
import { PIECE_BYTES } from './text-stream.js';

/** Reads `shared` in a worker through `lane` (readers block: never on the serving thread). */
async function readInWorker(shared: StreamedText, lane: 'engine' | 'scan'): Promise<string> {
  const module = scriptUrl('./shared-text.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(${JSON.stringify(module)}).then((m) => {
       try {
         const { shared, lane } = workerData;
         parentPort.postMessage({ text: m.readSharedText(shared, lane) });
       } catch (error) {
         parentPort.postMessage({ error: String(error && error.message) });
       }
     });`,
    { eval: true, workerData: { shared, lane } },
  );
  try {
    const reply = await new Promise<{ text: string; error?: string }>((resolve, reject) =>
      worker.once('message', resolve).once('error', reject),
    );
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.text;
  } finally {
    await worker.terminate();
  }
}

/**
 * The bytes the engine lane carries, read in a worker as the engine reads them (into a target of
 * one byte a character, or two for wide text).
 */
async function engineBytesInWorker(shared: StreamedText): Promise<Buffer> {
  const module = scriptUrl('./shared-text.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(${JSON.stringify(module)}).then((m) => {
       try {
         const { shared } = workerData;
         const bytes = new Uint8Array(shared.wide ? shared.length * 2 : shared.length);
         m.writeGuestCharacters(shared, bytes);
         parentPort.postMessage({ bytes });
       } catch (error) {
         parentPort.postMessage({ error: String(error && error.message) });
       }
     });`,
    { eval: true, workerData: { shared } },
  );
  try {
    const reply = await new Promise<{ bytes: Uint8Array; error?: string }>((resolve, reject) =>
      worker.once('message', resolve).once('error', reject),
    );
    if (reply.error !== undefined) throw new Error(reply.error);
    return Buffer.from(reply.bytes);
  } finally {
    await worker.terminate();
  }
}

/** What three readers at once get: one on the engine's lane, two sharing the scan lane. */
function readConcurrently(shared: StreamedText): Promise<string[]> {
  return Promise.all([
    readInWorker(shared, 'engine'),
    readInWorker(shared, 'scan'),
    readInWorker(shared, 'scan'),
  ]);
}

function streamed(text: string, pieceBytes: number): StreamedText {
  const shared = toStreamedText(text, { minChars: 1, pieceBytes });
  if (shared === undefined) throw new Error('expected streamed text');
  return shared;
}

describe('toStreamedText', () => {
  it('leaves only short strings as they are', () => {
    expect(toStreamedText('x'.repeat(100))).toBeUndefined();
    expect(toStreamedText('', { minChars: 0 })).toBeDefined();
    expect(toStreamedText('a lone \uD800 surrogate', { minChars: 1 })).toBeDefined();
    expect(toStreamedText('a NUL \u0000 inside', { minChars: 1 })).toBeDefined();
  });

  it('carries NUL characters and lone surrogates to other threads exactly', async () => {
    const texts = [
      'a lone \uD800 high, a lone \uDC00 low, \uDBFF\uDFFF a pair, \u0000 a NUL',
      '\uD83D'.repeat(9),
      'Latin-1 \u0000 with NUL ÿ\u0000',
    ];
    for (const text of texts) {
      expect(await readConcurrently(streamed(text, 16))).toEqual([text, text, text]);
    }
  });

  it('is shared text that a clone carries without the string itself', () => {
    const shared = streamed('some text to lend', 8);
    expect(isSharedText(shared)).toBe(true);
    const clone = structuredClone(shared);
    expect(isSharedText(clone)).toBe(true);
    expect(JSON.stringify(clone)).not.toContain('some text');
    // On the thread that holds it, the string is read directly.
    expect(readSharedText(shared)).toBe('some text to lend');
  });

  it('reaches other threads whole, readers at once on both lanes, at every piece boundary', async () => {
    // 16-byte pieces: 16 characters of Latin-1 text, or 8 UTF-16 code units of other text.
    const texts = [
      'a'.repeat(16),
      'a'.repeat(17),
      'a'.repeat(32),
      'abc'.repeat(11),
      'naïve café 漢字 end, naïve café 漢字 end',
      '漢字漢字漢字漢字漢字漢字漢字',
      // A surrogate pair at each offset around the 8-unit piece boundaries.
      ...[0, 1, 2, 3, 4, 5, 6, 8, 9].map(
        (offset) => `${'a'.repeat(offset)}😀😀x😀${'é'.repeat(7)}😀`,
      ),
      '😀'.repeat(12),
    ];
    for (const text of texts) {
      expect(await readConcurrently(streamed(text, 16))).toEqual([text, text, text]);
    }
  });

  it('gives the engine the characters as QuickJS keeps them: Latin-1 bytes, or UTF-16LE code units', async () => {
    // 16-byte pieces: 16 Latin-1 characters or 8 UTF-16 code units, so pairs fall across pieces.
    const cases: [string, 'latin1' | 'utf16le'][] = [
      ['a'.repeat(16), 'latin1'],
      ['edge bytes \u0080\u0081 \u00a0 é ÿ\u00ff'.repeat(3), 'latin1'],
      [`${'ÿ'.repeat(15)}\u0080${'é'.repeat(17)}`, 'latin1'],
      ['a'.repeat(7) + '😀'.repeat(9), 'utf16le'],
      ['x😀'.repeat(11), 'utf16le'],
      ['\u0100 just above Latin-1, 漢字 \uffff', 'utf16le'],
      ['NUL \u0000 and lone \uDC00\uD800 halves, split \uD83D', 'utf16le'],
    ];
    for (const [text, encoding] of cases) {
      const shared = streamed(text, 16);
      expect(shared.wide).toBe(encoding === 'utf16le');
      expect(await engineBytesInWorker(shared)).toEqual(Buffer.from(text, encoding));
    }
  });

  it('serves an empty text and a text of exactly one full-size piece', async () => {
    const empty = toStreamedText('', { minChars: 0 });
    if (empty === undefined) throw new Error('expected streamed text');
    expect(await readConcurrently(empty)).toEqual(['', '', '']);
    const full = 'x'.repeat(PIECE_BYTES);
    const read = await readConcurrently(streamed(full, PIECE_BYTES));
    expect(read.every((text) => text === full)).toBe(true);
  });

  it('stops serving once the text is no longer held, and a reader then fails rather than waits', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const makeClone = (): StreamedText => structuredClone(streamed('text nobody keeps', 8));
    const clone = makeClone();
    gc();
    // The holder's thread checks every 2 s whether the text is still held.
    await new Promise((done) => setTimeout(done, 2_500));
    gc();
    await expect(readInWorker(clone, 'scan')).rejects.toThrow(/no longer served/);
  });

  it('keeps no reference to the string once it is no longer held, even while a lane waits', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const settledHeap = async (): Promise<number> => {
      gc();
      await new Promise((done) => setTimeout(done, 50));
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = await settledHeap();
    // 32 MB, read once through each lane so each serving frame has seen the string.
    const read = async (): Promise<void> => {
      const text = 'ab'.repeat(16 * 1024 * 1024);
      const shared = streamed(text, PIECE_BYTES);
      expect(await readConcurrently(shared)).toEqual([text, text, text]);
    };
    await read();
    // The lanes are still waiting (they check every 2 s whether the text is held).
    expect((await settledHeap()) - before).toBeLessThan(8 * 1024 * 1024);
  });
});
