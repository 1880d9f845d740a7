import { describe, expect, it } from 'vitest';
import { RlmError } from './rlm-error.js';

function timeoutError(): RlmError<'sandbox.timeout'> {
  return new RlmError({
    code: 'sandbox.timeout',
    message: 'Block ran longer than 100 ms.',
    details: { limitMs: 100, kind: 'cpu' },
  });
}

describe('RlmError', () => {
  it('is an Error with a stable code, details and a name', () => {
    const error = timeoutError();
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('RlmError');
    expect(error.code).toBe('sandbox.timeout');
    expect(error.details).toEqual({ limitMs: 100, kind: 'cpu' });
    expect(error.retryable).toBe(false);
  });

  it('keeps the cause it was given', () => {
    const cause = new TypeError('inner');
    const error = new RlmError({
      code: 'model.network',
      message: 'down',
      details: {},
      cause,
      retryable: true,
    });
    expect(error.cause).toBe(cause);
    expect(error.retryable).toBe(true);
  });

  it('recognises its own errors, optionally by code', () => {
    const error = timeoutError();
    expect(RlmError.is(error)).toBe(true);
    expect(RlmError.is(error, 'sandbox.timeout')).toBe(true);
    expect(RlmError.is(error, 'sandbox.out_of_memory')).toBe(false);
  });

  it('recognises an error from another copy of the package by its brand', () => {
    const foreign = { [Symbol.for('rlm.error')]: true, code: 'sandbox.timeout', message: 'x' };
    expect(RlmError.is(foreign, 'sandbox.timeout')).toBe(true);
  });

  it('rejects look-alikes without the brand', () => {
    expect(RlmError.is(new Error('sandbox.timeout'))).toBe(false);
    expect(RlmError.is({ code: 'sandbox.timeout' }, 'sandbox.timeout')).toBe(false);
    expect(RlmError.is(null)).toBe(false);
    expect(RlmError.is('sandbox.timeout')).toBe(false);
  });

  it('serialises to code, message, details and retryable only', () => {
    const error = new RlmError({
      code: 'model.auth',
      message: 'Bad key.',
      details: { status: 401 },
      cause: new Error('secret-bearing cause'),
    });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'model.auth',
      message: 'Bad key.',
      details: { status: 401 },
      retryable: false,
    });
  });
});
