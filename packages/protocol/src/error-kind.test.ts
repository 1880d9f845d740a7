import { describe, expect, it } from 'vitest';
import { ERROR_KIND_BY_CODE, ERROR_KINDS, errorKind } from './error-kind.js';

describe('errorKind', () => {
  it('gives every registered code one of the six kinds', () => {
    for (const [code, kind] of Object.entries(ERROR_KIND_BY_CODE)) {
      expect(ERROR_KINDS, code).toContain(kind);
    }
  });

  it('classifies codes by who has to act on them', () => {
    expect(errorKind('config.invalid')).toBe('usage');
    expect(errorKind('model.auth')).toBe('auth');
    expect(errorKind('model.overloaded')).toBe('provider');
    expect(errorKind('executor.budget_exceeded')).toBe('limit');
    expect(errorKind('executor.cancelled')).toBe('cancelled');
    expect(errorKind('sandbox.poisoned')).toBe('internal');
  });

  it('treats a code this build does not know as internal', () => {
    expect(errorKind('future.code')).toBe('internal');
    expect(errorKind('unknown')).toBe('internal');
  });
});
