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
});
