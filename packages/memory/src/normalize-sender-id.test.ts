import { describe, expect, it } from 'vitest';
import { normalizeSenderId } from './normalize-sender-id.js';

describe('normalizeSenderId', () => {
  it('trims whitespace', () => {
    expect(normalizeSenderId('  alice \n')).toBe('alice');
  });

  it('lowercases 0x-prefixed hex addresses, including an upper-case X', () => {
    expect(normalizeSenderId('0xABCdef0123')).toBe('0xabcdef0123');
    expect(normalizeSenderId(' 0XAB ')).toBe('0xab');
  });

  it('keeps the case of ids that are not hex addresses', () => {
    expect(normalizeSenderId('Alice')).toBe('Alice');
    expect(normalizeSenderId('0xNotHex')).toBe('0xNotHex');
  });
});
