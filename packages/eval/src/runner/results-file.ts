import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { type JsonLineError, safeParseJsonLines } from '@rlm/trace';
import { type ResultRow, resultRowSchema } from './result-row.js';

/** The file name of the rows inside an eval's output directory. */
export const RESULTS_FILE = 'results.jsonl';

/**
 * Reads result rows with `@rlm/trace`'s JSONL reader: a last line cut short by a crash is ignored
 * (its attempt simply runs again on resume); any other bad line is an error naming it. A missing
 * file has no rows.
 *
 * @throws RlmError `eval.invalid_results` naming the line of a corrupt row
 */
export async function readResultRows(path: string): Promise<ResultRow[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = safeParseJsonLines(text, resultRowSchema);
  if (parsed.ok) return parsed.value;
  throw corruptRow(path, parsed.error);
}

/** Appends rows one line each, in one write so a row is never interleaved with another. */
export async function appendResultRow(path: string, row: ResultRow): Promise<void> {
  await appendFile(path, `${JSON.stringify(row)}\n`, 'utf8');
}

/**
 * Replaces the file's content with `rows`, so a line cut short by a crash is gone before new rows
 * are appended after it.
 */
export async function rewriteResultRows(path: string, rows: readonly ResultRow[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, rows.map((row) => `${JSON.stringify(row)}\n`).join(''), 'utf8');
}

/** Creates (or empties) the results file, creating its directory. */
export async function resetResultsFile(path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, '', 'utf8');
}

function corruptRow(
  path: string,
  { line, issues, cause }: JsonLineError,
): RlmError<'eval.invalid_results'> {
  return new RlmError({
    code: 'eval.invalid_results',
    message: `Corrupt result row in ${path} at line ${line}: ${issues.join('; ')}`,
    details: { path, line, issues },
    cause,
  });
}
