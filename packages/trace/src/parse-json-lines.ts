import { describeIssues, RlmError } from '@rlm/protocol';
import type { z } from 'zod';

/** Options of `parseJsonLines` and `safeParseJsonLines`. */
export interface ParseJsonLinesOptions {
  /** What the text is, for error messages (`trajectory`, a file path). @default 'JSONL' */
  source?: string;
  /**
   * What a truncated tail is: a last line that is not JSON and has no newline after it, which is
   * what a writer killed in the middle of a line leaves behind. `drop` reads the lines before it
   * (files written line by line, such as trajectories and result rows, are a readable prefix by
   * design); `error` treats it like any bad line (files people write by hand). @default 'drop'
   */
  truncatedTail?: 'drop' | 'error';
}

/** The first bad line of a JSONL text. */
export interface JsonLineError {
  /** 1-based. */
  line: number;
  /** What is wrong with it: `not JSON (…)` or the schema's issues (`path: message`). */
  issues: string[];
  /** The `SyntaxError` or `ZodError`. */
  cause: unknown;
}

/** The outcome of `safeParseJsonLines`. */
export type JsonLinesResult<T> =
  | {
      ok: true;
      value: T[];
      /** The 1-based line of each value, for checks across lines (such as unique ids). */
      lines: number[];
      /** Whether a truncated tail was dropped. */
      truncated: boolean;
    }
  | { ok: false; error: JsonLineError };

/**
 * Parses JSONL text, one value per line checked against `schema`: blank lines are skipped, a
 * truncated tail is dropped (see `truncatedTail`), and the first other bad line stops the parse
 * with its line number. Every JSONL reader in the repository goes through this function, so they
 * all agree on what a cut-off file is.
 *
 * @example
 * const result = safeParseJsonLines(text, resultRowSchema);
 * if (!result.ok) throw new Error(`line ${result.error.line}: ${result.error.issues.join('; ')}`);
 */
export function safeParseJsonLines<TSchema extends z.ZodType>(
  text: string,
  schema: TSchema,
  { truncatedTail = 'drop' }: Pick<ParseJsonLinesOptions, 'truncatedTail'> = {},
): JsonLinesResult<z.output<TSchema>> {
  const lines = text.split('\n');
  // Only the text after the last newline can be a line whose writing was cut short.
  const tail = text.endsWith('\n') ? -1 : lines.length - 1;
  const values: z.output<TSchema>[] = [];
  const numbers: number[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (cause) {
      if (index === tail && truncatedTail === 'drop') {
        return { ok: true, value: values, lines: numbers, truncated: true };
      }
      const reason = cause instanceof Error ? cause.message : String(cause);
      return { ok: false, error: { line: index + 1, issues: [`not JSON (${reason})`], cause } };
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      return {
        ok: false,
        error: { line: index + 1, issues: describeIssues(parsed.error), cause: parsed.error },
      };
    }
    values.push(parsed.data);
    numbers.push(index + 1);
  }
  return { ok: true, value: values, lines: numbers, truncated: false };
}

/**
 * `safeParseJsonLines` that returns the values and throws on a bad line.
 *
 * @throws RlmError `protocol.invalid_message` naming the source, the line and what is wrong
 * @example
 * const rows = parseJsonLines(await readFile(path, 'utf8'), rowSchema, { source: path });
 */
export function parseJsonLines<TSchema extends z.ZodType>(
  text: string,
  schema: TSchema,
  { source = 'JSONL', truncatedTail }: ParseJsonLinesOptions = {},
): z.output<TSchema>[] {
  const result = safeParseJsonLines(text, schema, { truncatedTail });
  if (result.ok) return result.value;
  throw jsonLinesError(result.error, source);
}

/** The `RlmError` for a bad line of `source`. */
export function jsonLinesError(
  { line, issues, cause }: JsonLineError,
  source: string,
): RlmError<'protocol.invalid_message'> {
  const located = issues.map((issue) => `line ${line}: ${issue}`);
  return new RlmError({
    code: 'protocol.invalid_message',
    message: `Invalid ${source} at line ${line}: ${issues.join('; ')}`,
    details: { issues: located },
    cause,
  });
}
