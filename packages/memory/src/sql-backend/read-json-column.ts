import { describeIssues, RlmError } from '@rlm/protocol';
import type { z } from 'zod';

/**
 * Parses a JSON column and validates it with its schema, so a row written by another version or
 * edited by hand never reaches callers as a silently wrong shape.
 * @throws RlmError `memory.storage_failed` naming the column and the bad fields
 */
export function readJsonColumn<TSchema extends z.ZodType>(
  schema: TSchema,
  text: string,
  column: string,
): z.output<TSchema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(column, 'not valid JSON', error);
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw corrupt(column, describeIssues(result.error).join('; '), result.error);
}

function corrupt(
  column: string,
  reason: string,
  cause: unknown,
): RlmError<'memory.storage_failed'> {
  return new RlmError({
    code: 'memory.storage_failed',
    message: `Stored ${column} is invalid: ${reason}`,
    details: { operation: `read ${column}` },
    cause,
  });
}
