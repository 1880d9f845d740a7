import { parseSchema } from '@rlm/protocol';
import { z } from 'zod';

const idSchema = z
  .string()
  .refine((value) => value.trim().length > 0, 'expected a non-blank string');

/**
 * Parses a caller's argument, naming it in the error.
 * @throws RlmError `protocol.invalid_message`
 */
export function parseInput<TSchema extends z.ZodType>(
  schema: TSchema,
  value: unknown,
  what: string,
): z.output<TSchema> {
  return parseSchema(schema, value, { what });
}

/**
 * Checks an id-like argument (key, sender, run id) is a non-blank string.
 * @throws RlmError `protocol.invalid_message` naming `what`
 */
export function parseId(value: unknown, what: string): string {
  return parseSchema(idSchema, value, { what });
}

const countSchema = z.number().int().nonnegative();

/**
 * Checks the `n` of `recent(sender, n)`.
 * @throws RlmError `protocol.invalid_message`
 */
export function parseRecentCount(n: unknown): number {
  return parseSchema(countSchema, n, { what: 'recent count n' });
}
