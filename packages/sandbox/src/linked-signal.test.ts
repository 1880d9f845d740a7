import { describe, expect, it } from 'vitest';
import { linkSignals } from './linked-signal.js';

describe('linkSignals', () => {
  it('aborts with the reason of whichever signal aborts first', () => {
    for (const firstAborts of [true, false]) {
      const first = new AbortController();
      const second = new AbortController();
      const { signal } = linkSignals(first.signal, second.signal);
      expect(signal.aborted).toBe(false);
      const [early, late] = firstAborts ? [first, second] : [second, first];
      early.abort(`reason ${firstAborts}`);
      late.abort('later');
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBe(`reason ${firstAborts}`);
    }
  });

  it('is aborted at once when a signal already is', () => {
    const second = new AbortController();
    second.abort('before');
    const { signal } = linkSignals(new AbortController().signal, second.signal);
    expect(signal.reason).toBe('before');
  });

  it('follows neither signal once unlinked', () => {
    const first = new AbortController();
    const { signal, unlink } = linkSignals(first.signal, new AbortController().signal);
    unlink();
    first.abort('after');
    expect(signal.aborted).toBe(false);
  });
});
