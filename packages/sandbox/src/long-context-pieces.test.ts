import { describe, expect, it } from 'vitest';
import { SHARED_TEXT_MIN_CHARS } from './context-ops/shared-text.js';
import { PIECE_BYTES } from './context-ops/text-stream.js';
import type { Sandbox } from './sandbox.js';
import { ISOLATIONS, withSandbox } from './sandbox-cases.test-helpers.js';

/**
 * Long context strings reach the engine (and the scan worker) in pieces of `PIECE_BYTES` from the
 * thread that created the sandbox, as QuickJS keeps a string (Latin-1 bytes, or UTF-16 code units
 * for text with a character above U+00FF): these pin that every character survives the piece
 * boundaries, for every kind of text and number of contexts.
 */

/** UTF-16 code units in one piece of wide text. */
const WIDE_PIECE_CHARS = PIECE_BYTES / 2;

function checksum(text: string): number {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum = (sum * 31 + text.charCodeAt(i)) | 0;
  return sum;
}

/** The guest's view of `name`: its length, checksum, and the characters around `at`. */
async function guestView(
  sandbox: Sandbox,
  name: string,
  at: number,
): Promise<{ length: number; sum: number; around: string }> {
  const result = await sandbox.execute(`var __view = (() => {
    let sum = 0;
    for (let i = 0; i < ${name}.length; i++) sum = (sum * 31 + ${name}.charCodeAt(i)) | 0;
    return { length: ${name}.length, sum, around: ${name}.slice(${Math.max(0, at - 3)}, ${at + 3}) };
  })();`);
  expect(result.error).toBeNull();
  return (await sandbox.getVariable('__view')) as { length: number; sum: number; around: string };
}

function hostView(text: string, at: number): { length: number; sum: number; around: string } {
  return {
    length: text.length,
    sum: checksum(text),
    around: text.slice(Math.max(0, at - 3), at + 3),
  };
}

const ASTRAL_ACROSS = `${'é'.repeat(WIDE_PIECE_CHARS - 1)}😀${'x'.repeat(SHARED_TEXT_MIN_CHARS - WIDE_PIECE_CHARS)}`;
const ASCII_PAST = `${'b'.repeat(PIECE_BYTES)}c`;
const MIXED = 'naïve café 漢字 '.repeat(Math.ceil(SHARED_TEXT_MIN_CHARS / 13) * 2);
/** The highest Latin-1 byte, a NUL and the lowest non-ASCII byte on both sides of a boundary. */
const LATIN1_EDGES = `${'\u00ff'.repeat(PIECE_BYTES - 2)}\u0000\u0080\u00ff\u0000${'é'.repeat(9)}`;
/** A lone high surrogate just before a boundary; a NUL and a lone low one just after. */
const LONE_ACROSS = `${'漢'.repeat(WIDE_PIECE_CHARS - 1)}\uD800\u0000\uDC01${'x'.repeat(SHARED_TEXT_MIN_CHARS)}`;

const CASES: readonly (readonly [string, string, number])[] = [
  ['ASCII of exactly one piece', `${'a'.repeat(PIECE_BYTES - 1)}\n`, PIECE_BYTES],
  ['ASCII one character past a piece', ASCII_PAST, PIECE_BYTES],
  ['ASCII of exactly two pieces', `${'d'.repeat(2 * PIECE_BYTES - 1)}e`, 2 * PIECE_BYTES],
  ['an astral character across a piece boundary', ASTRAL_ACROSS, WIDE_PIECE_CHARS],
  ['Latin-1 and CJK text over several pieces', MIXED, WIDE_PIECE_CHARS * 2],
  ['Latin-1 edge bytes and NULs across a piece boundary', LATIN1_EDGES, PIECE_BYTES],
  ['lone surrogates on both sides of a piece boundary', LONE_ACROSS, WIDE_PIECE_CHARS],
];

describe.each(ISOLATIONS)('long contexts in pieces (%s)', (isolation) => {
  for (const [label, text, boundary] of CASES) {
    it(`holds ${label} character for character, and scans it`, async () => {
      expect(text.length).toBeGreaterThanOrEqual(SHARED_TEXT_MIN_CHARS);
      await withSandbox({ isolation, context: text }, async (sandbox) => {
        expect(await guestView(sandbox, 'context', boundary)).toEqual(hostView(text, boundary));
        const last = text.at(-1) ?? '';
        const counted = await sandbox.execute(
          `var __count = await count(${JSON.stringify(last)});`,
        );
        expect(counted.error).toBeNull();
        expect(await sandbox.getVariable('__count')).toBe(text.split(last).length - 1);
      });
    });
  }

  it('holds several contexts, long and short, each whole', async () => {
    const texts = [ASTRAL_ACROSS, 'short', '', ASCII_PAST, MIXED];
    await withSandbox({ isolation, contexts: texts }, async (sandbox) => {
      for (const [index, text] of texts.entries()) {
        const at = Math.floor(text.length / 2);
        expect(await guestView(sandbox, `context_${index}`, at)).toEqual(hostView(text, at));
      }
      const counted = await sandbox.execute(
        'var __counts = [await count("😀"), await count("c", { target: 3 }), await count("漢", { target: 4 })];',
      );
      expect(counted.error).toBeNull();
      expect(await sandbox.getVariable('__counts')).toEqual([1, 1, MIXED.split('漢').length - 1]);
    });
  });

  it('holds odd text one character short of streaming and exactly at it alike', async () => {
    const latin1 = (length: number): string =>
      `${`\u0000\u00ff${'é\u0080'.repeat(length / 2)}`.slice(0, length - 2)}\u00ff\u0000`;
    const wide = (length: number): string =>
      `${`\uDC00😀${'漢\uD800'.repeat(length / 2)}`.slice(0, length - 2)}\u0000\uD83D`;
    const texts = [SHARED_TEXT_MIN_CHARS - 1, SHARED_TEXT_MIN_CHARS].flatMap((length) => [
      latin1(length),
      wide(length),
    ]);
    await withSandbox({ isolation, contexts: texts }, async (sandbox) => {
      for (const [index, text] of texts.entries()) {
        expect(text.length).toBe(SHARED_TEXT_MIN_CHARS - (index < 2 ? 1 : 0));
        const at = text.length - 2;
        expect(await guestView(sandbox, `context_${index}`, at)).toEqual(hostView(text, at));
      }
    });
  });
});

describe('a worker sandbox reset over a long context', () => {
  it('gives the fresh engine the whole context again', async () => {
    const text = ASTRAL_ACROSS;
    await withSandbox({ isolation: 'worker', context: text }, async (sandbox) => {
      // JSON.stringify of a 60,000-deep object runs for seconds inside one builtin: an abort can
      // only stop it by terminating the worker, and a fresh engine takes its place.
      for (let step = 0; step <= 20; step++) {
        const built = await sandbox.execute(
          step === 0 ? 'var big = {}; 1' : 'for (let i = 0; i < 3_000; i++) big = { big }; 1',
        );
        expect(built.error).toBeNull();
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 500);
      const result = await sandbox.execute('JSON.stringify(big).length', {
        signal: controller.signal,
      });
      clearTimeout(timer);
      expect(result.error?.code).toBe('sandbox.reset');
      expect(await guestView(sandbox, 'context', WIDE_PIECE_CHARS)).toEqual(
        hostView(text, WIDE_PIECE_CHARS),
      );
    });
  });
});
