import { ERROR_KIND_BY_CODE, type ErrorCode } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { STATUS_BY_KIND, statusByCode, statusForCode } from './status-by-code.js';

describe('statusForCode', () => {
  it('gives every code its kind’s status unless HTTP has a narrower one', () => {
    expect(statusForCode('config.invalid')).toBe(STATUS_BY_KIND.usage);
    expect(statusForCode('server.unauthorized')).toBe(STATUS_BY_KIND.auth);
    expect(statusForCode('model.server_error')).toBe(STATUS_BY_KIND.provider);
    expect(statusForCode('executor.budget_exceeded')).toBe(STATUS_BY_KIND.limit);
    expect(statusForCode('executor.cancelled')).toBe(STATUS_BY_KIND.cancelled);
    expect(statusForCode('sandbox.poisoned')).toBe(STATUS_BY_KIND.internal);
    expect(statusForCode('server.not_found')).toBe(404);
    expect(statusForCode('model.rate_limited')).toBe(429);
  });

  it('maps every registered code to an HTTP error status', () => {
    const codes = Object.keys(ERROR_KIND_BY_CODE) as ErrorCode[];
    expect(Object.keys(statusByCode).sort()).toEqual([...codes].sort());
    for (const code of codes) {
      expect(statusByCode[code], code).toBe(statusForCode(code));
      expect(statusForCode(code), code).toBeGreaterThanOrEqual(400);
      expect(statusForCode(code), code).toBeLessThan(600);
    }
  });

  it('answers 500 for a code this build does not know', () => {
    expect(statusForCode('future.code' as ErrorCode)).toBe(500);
  });
});
