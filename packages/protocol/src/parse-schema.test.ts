import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseSchema } from './parse-schema.js';
import { RlmError } from './rlm-error.js';

const configSchema = z.object({
  model: z.string(),
  limits: z.object({ maxIterations: z.number().int().positive() }),
});

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parseSchema', () => {
  it('returns the parsed value for valid input', () => {
    const value = { model: 'm', limits: { maxIterations: 3 } };
    expect(parseSchema(configSchema, value, { what: 'run config' })).toEqual(value);
  });

  it('throws protocol.invalid_message naming the bad field and what was expected', () => {
    const error = caught(() =>
      parseSchema(
        configSchema,
        { model: 'm', limits: { maxIterations: 'ten' } },
        { what: 'run config' },
      ),
    );
    expect(RlmError.is(error, 'protocol.invalid_message')).toBe(true);
    const { message, details } = error as RlmError<'protocol.invalid_message'>;
    expect(message).toContain('Invalid run config');
    expect(message).toContain('limits.maxIterations');
    expect(details.issues).toEqual([expect.stringMatching(/^limits\.maxIterations: .*number/)]);
  });

  it('uses the code it is given and lists every bad field', () => {
    const error = caught(() =>
      parseSchema(configSchema, { limits: {} }, { what: 'config file', code: 'config.invalid' }),
    );
    expect(error).toMatchObject({ code: 'config.invalid', details: { source: 'config file' } });
    const { details } = error as RlmError<'config.invalid'>;
    expect(details.issues.map((issue) => issue.split(':')[0])).toEqual([
      'model',
      'limits.maxIterations',
    ]);
  });

  it('names the root when the whole value is wrong', () => {
    const error = caught(() => parseSchema(configSchema, 'nope', { what: 'run config' }));
    expect((error as RlmError<'protocol.invalid_message'>).details.issues[0]).toMatch(
      /^\(root\): /,
    );
  });
});
