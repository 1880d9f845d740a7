import { createHash } from 'node:crypto';
import type { JsonValue } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { CONTEXT_HASH_CHUNK_CHARS, contextHash } from './context-fingerprint.js';

/** The hash of a payload's text taken in one `update`, as recorded trajectories have it. */
function wholeHash(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

/** A string of `length` characters whose character at `at` (and after) is `tail`. */
function withAt(length: number, at: number, tail: string): string {
  return 'a'.repeat(at) + tail + 'b'.repeat(length - at - tail.length);
}

describe('contextHash', () => {
  it('hashes a context longer than one piece as the whole text', () => {
    const text = 'line of context\n'.repeat(Math.ceil((CONTEXT_HASH_CHUNK_CHARS * 2.5) / 16));
    expect(contextHash(text)).toBe(wholeHash(text));
  });

  it('keeps a surrogate pair that straddles a piece boundary whole', () => {
    const text = withAt(CONTEXT_HASH_CHUNK_CHARS + 10, CONTEXT_HASH_CHUNK_CHARS - 1, '😀');
    expect(text.charCodeAt(CONTEXT_HASH_CHUNK_CHARS - 1)).toBe(0xd83d);
    expect(contextHash(text)).toBe(wholeHash(text));
  });

  it('hashes lone surrogates at a piece boundary as the whole text does', () => {
    const highAtEnd = withAt(
      CONTEXT_HASH_CHUNK_CHARS + 10,
      CONTEXT_HASH_CHUNK_CHARS - 1,
      '\ud83dx',
    );
    const lowAtStart = withAt(CONTEXT_HASH_CHUNK_CHARS + 10, CONTEXT_HASH_CHUNK_CHARS, '\ude00');
    const highAtVeryEnd = `${'a'.repeat(CONTEXT_HASH_CHUNK_CHARS - 1)}\ud83d`;
    for (const text of [highAtEnd, lowAtStart, highAtVeryEnd]) {
      expect(contextHash(text)).toBe(wholeHash(text));
    }
  });

  it('hashes a structured payload as its JSON text, and an empty string', () => {
    const payload: JsonValue = { files: ['x'.repeat(CONTEXT_HASH_CHUNK_CHARS), 'é'], n: 1 };
    expect(contextHash(payload)).toBe(wholeHash(JSON.stringify(payload)));
    expect(contextHash('')).toBe(wholeHash(''));
  });
});
