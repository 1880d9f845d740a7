import { createHash } from 'node:crypto';
import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import * as checks from './context-checks.js';

describe('context checks shared by the file and Postgres stores', () => {
  it('makes ids that it accepts, and accepts nothing else', () => {
    const id = checks.newContextId();
    expect(id).toMatch(/^ctx_[0-9a-f]{24}$/);
    expect(checks.isContextId(id)).toBe(true);
    for (const other of ['', 'ctx_', `${id}0`, id.toUpperCase(), '../ctx_000000000000000000000000'])
      expect(checks.isContextId(other)).toBe(false);
  });

  it('counts and hashes every byte up to the limit, and refuses the chunk that passes it', () => {
    const meter = checks.meterContext(5);
    meter.add(Buffer.from('abc'));
    meter.add(Buffer.from('de'));
    expect(meter.bytes).toBe(5);
    expect(() => meter.add(Buffer.from('f'))).toThrow(
      expect.objectContaining({
        code: 'server.payload_too_large',
        details: { what: 'context', limitBytes: 5 },
      }),
    );
    const fresh = checks.meterContext(5);
    fresh.add(Buffer.from('abcde'));
    expect(fresh.sha256()).toBe(createHash('sha256').update('abcde').digest('hex'));
  });

  it('names the missing context in its not-found error', () => {
    const error = checks.contextNotFound('ctx_1');
    expect(RlmError.is(error, 'server.not_found')).toBe(true);
    expect(error.details).toEqual({ resource: 'context', id: 'ctx_1' });
  });

  it('saves an inline value as JSON without a size limit', async () => {
    const calls: unknown[] = [];
    const saved = await checks.saveContextValue(
      async (body, options) => {
        calls.push({ text: Buffer.concat([...body]).toString('utf8'), options });
        return 'meta';
      },
      { a: [1, 'two'] },
      { owner: 'u1' },
    );
    expect(saved).toBe('meta');
    expect(calls).toEqual([
      {
        text: '{"a":[1,"two"]}',
        options: {
          owner: 'u1',
          format: 'json',
          limitBytes: Number.POSITIVE_INFINITY,
          pending: false,
        },
      },
    ]);
  });
});
