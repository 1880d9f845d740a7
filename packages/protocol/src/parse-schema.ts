import { prettifyError, type z } from 'zod';
import { RlmError } from './rlm-error.js';

/** Turns zod issues into `path: message` lines that name the field and what was expected. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
}

export interface ParseSchemaOptions {
  /** What was being parsed, for the message (`run config`, `--context`, …). */
  what: string;
  /**
   * `config.invalid` for options and configuration (its `details.source` is `what`).
   * @default 'protocol.invalid_message'
   */
  code?: 'protocol.invalid_message' | 'config.invalid';
}

/**
 * Parses `value` with `schema` or throws `RlmError` whose message names every bad field.
 *
 * @throws RlmError `protocol.invalid_message` or `config.invalid`
 */
export function parseSchema<TSchema extends z.ZodType>(
  schema: TSchema,
  value: unknown,
  { what, code = 'protocol.invalid_message' }: ParseSchemaOptions,
): z.output<TSchema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const message = `Invalid ${what}:\n${prettifyError(result.error)}`;
  const issues = describeIssues(result.error);
  if (code === 'config.invalid') {
    throw new RlmError({
      code,
      message,
      details: { source: what, issues },
      cause: result.error,
    });
  }
  throw new RlmError({ code, message, details: { issues }, cause: result.error });
}
