import { ERROR_KIND_BY_CODE, RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error.js';
import { EXIT_CODES, exitCodeForError, exitCodeOf } from './exit-code.js';

const error = (code: string) => ({ code, message: 'm' });

describe('exitCodeOf', () => {
  it('exits 0 only for a completed run with an answer', () => {
    expect(exitCodeOf({ status: 'completed', answer: '42', error: null })).toBe(0);
    expect(exitCodeOf({ status: 'max_iterations', answer: '42', error: null })).toBe(3);
    expect(exitCodeOf({ status: 'max_iterations', answer: null, error: null })).toBe(3);
  });

  it('exits 4 for an answer reached while a budget refused sub-calls', () => {
    const answered = { status: 'completed', answer: 'NOT FOUND', error: null } as const;
    expect(exitCodeOf({ ...answered, refusedCalls: 2 })).toBe(EXIT_CODES.limit);
    expect(exitCodeOf({ ...answered, refusedCalls: 0 })).toBe(EXIT_CODES.answered);
  });

  it('gives budgets, cancellation and failures their own codes', () => {
    const limit = error('executor.budget_exceeded');
    expect(exitCodeOf({ status: 'budget_exceeded', answer: null, error: limit })).toBe(4);
    expect(exitCodeOf({ status: 'timeout', answer: null, error: limit })).toBe(4);
    expect(exitCodeOf({ status: 'cancelled', answer: null, error: null })).toBe(130);
    const failed = (code: string) =>
      exitCodeOf({ status: 'error', answer: null, error: error(code) });
    expect(failed('model.overloaded')).toBe(EXIT_CODES.provider);
    expect(failed('model.auth')).toBe(EXIT_CODES.auth);
    expect(failed('sandbox.poisoned')).toBe(EXIT_CODES.failed);
    expect(exitCodeOf({ status: 'error', answer: null, error: null })).toBe(1);
  });
});

describe('exitCodeForError', () => {
  it('derives every code’s exit code from its kind, with no code left out', () => {
    const byKind = {
      usage: 2,
      auth: 6,
      provider: 5,
      limit: 4,
      cancelled: 130,
      internal: 1,
    } as const;
    for (const [code, kind] of Object.entries(ERROR_KIND_BY_CODE)) {
      expect(exitCodeForError(code), code).toBe(byKind[kind]);
    }
    expect(exitCodeForError('some.future_code')).toBe(1);
  });

  it('is what describeError reports for thrown errors', () => {
    const missingKey = new RlmError({
      code: 'model.auth',
      message: 'no key',
      details: { status: undefined, variable: 'OPENAI_API_KEY', option: 'apiKey' },
    });
    expect(describeError(missingKey)).toMatchObject({
      exitCode: 6,
      message: expect.stringMatching(/^OPENAI_API_KEY is not set; export OPENAI_API_KEY=/),
    });
    const usage = new RlmError({
      code: 'config.invalid',
      message: 'bad',
      details: { source: 'flags', issues: [] },
    });
    expect(describeError(usage).exitCode).toBe(2);
    expect(describeError(new Error('boom')).exitCode).toBe(1);
  });
});
