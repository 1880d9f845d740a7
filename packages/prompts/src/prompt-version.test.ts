import { describe, expect, it } from 'vitest';
import { promptVersion } from './prompt-version.js';

describe('promptVersion', () => {
  it('matches the published FNV-1a 64 test vectors', () => {
    expect(promptVersion('')).toBe('cbf29ce484222325');
    expect(promptVersion('a')).toBe('af63dc4c8601ec8c');
    expect(promptVersion('foobar')).toBe('85944171f73967e8');
  });

  it('hashes the UTF-8 bytes of non-ASCII text', () => {
    // "é" is two UTF-8 bytes, "€" three and "😀" four; each must differ from its code units.
    const samples = ['é', '€', '😀', 'naïve → ok'];
    const versions = samples.map(promptVersion);
    expect(new Set(versions).size).toBe(samples.length);
    for (const version of versions) expect(version).toMatch(/^[0-9a-f]{16}$/);
  });

  it('gives the same id for equal texts and a different one after a one-character change', () => {
    const text = 'You are an RLM.\n## Your REPL';
    expect(promptVersion(text)).toBe(promptVersion(`${text}`));
    expect(promptVersion(text)).not.toBe(promptVersion(`${text}.`));
  });

  it('gives the ids of FNV-1a 64 computed byte by byte with BigInt (astral and lone surrogates too)', () => {
    const reference = (text: string): string => {
      let hash = 0xcbf29ce484222325n;
      for (const byte of utf8(text))
        hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return hash.toString(16).padStart(16, '0');
    };
    const samples = [
      'You are an RLM.',
      'naïve → ok 😀 多lor',
      'lone \ud800 high, lone \udc00 low, pair \ud83d\ude00',
      '\u007f\u0080\u07ff\u0800\uffff',
      Array.from({ length: 3000 }, (_, i) => String.fromCodePoint((i * 7919) % 0x2ffff)).join(''),
    ];
    for (const text of samples) expect(promptVersion(text)).toBe(reference(text));
  });
});

/** UTF-8 bytes as the hash reads them: each code point, a lone surrogate as its own three bytes. */
function utf8(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) {
      bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    } else {
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f),
      );
    }
  }
  return bytes;
}
