import { describeIssues, RlmError } from '@rlm/protocol';
import type { Context } from 'hono';
import { prettifyError, type z } from 'zod';
import { assertJsonDepth } from './json-nesting.js';

/**
 * Parses the request body as JSON and validates it with `schema`.
 *
 * @throws RlmError `protocol.invalid_payload` for a body that is not JSON or nests deeper than
 *   `MAX_JSON_DEPTH`, `protocol.invalid_message` naming every bad field
 */
export async function readJsonBody<TSchema extends z.ZodType>(
  c: Context,
  schema: TSchema,
  what: string,
): Promise<z.output<TSchema>> {
  let value: unknown;
  try {
    value = await c.req.json();
  } catch (error) {
    throw new RlmError({
      code: 'protocol.invalid_payload',
      message: `The ${what} body must be JSON (content-type: application/json)`,
      details: { path: 'body', expected: 'a JSON object' },
      cause: error,
    });
  }
  assertJsonDepth(value, `${what} body`);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new RlmError({
    code: 'protocol.invalid_message',
    message: `Invalid ${what}:\n${prettifyError(result.error)}`,
    details: { issues: describeIssues(result.error) },
  });
}

/** Validates query-string parameters the same way. */
export function parseQuery<TSchema extends z.ZodType>(
  c: Context,
  schema: TSchema,
): z.output<TSchema> {
  const result = schema.safeParse(c.req.query());
  if (result.success) return result.data;
  throw new RlmError({
    code: 'protocol.invalid_message',
    message: `Invalid query parameters:\n${prettifyError(result.error)}`,
    details: { issues: describeIssues(result.error) },
  });
}
