import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import type { EvalTask } from '../task/eval-task.js';
import { type ArcTaskFile, arcTaskFileSchema, formatGrid } from './arc-task-file.js';

/** What every ARC task asks; the grids are in the context. */
export const ARC_QUERY =
  'The context is an ARC puzzle: `context.train` holds example pairs, each an input grid and the ' +
  'output grid one hidden rule makes of it; `context.test.input` is a new input grid. Grids are ' +
  'arrays of rows of integers 0–9 (colours). Find the rule from the examples, apply it to the ' +
  'test input, and answer with the output grid only, as JSON on one line, e.g. [[0,1],[2,3]].';

/**
 * The eval tasks of one ARC task file: one per `test` pair, whose context holds every `train`
 * pair and that pair's input (never its output), answered by the output grid and scored
 * `grid_exact`. Ids are the file's name (`007bbfb7`), with `-t<n>` when it has several test pairs.
 *
 * @throws RlmError `eval.invalid_task` naming `source` and the field at fault
 */
export function arcTasksFromFile(
  value: unknown,
  { id, source = id }: { id: string; source?: string },
): EvalTask[] {
  const file = parseArcTaskFile(value, source);
  return file.test.map((pair, index) => ({
    id: file.test.length === 1 ? id : `${id}-t${index}`,
    query: ARC_QUERY,
    context: { train: file.train, test: { input: pair.input } },
    answer: formatGrid(pair.output),
    scorer: { kind: 'grid_exact' },
    meta: { benchmark: 'arc', source, testIndex: index },
  }));
}

/**
 * Reads every `*.json` file of a directory (in name order) as an ARC task file, the layout of the
 * public ARC repositories (`data/evaluation/<id>.json`).
 *
 * @throws RlmError `eval.invalid_task` for an unreadable directory, one without JSON files, or a
 *   file that is not JSON or not in the ARC format (naming the file and the field)
 */
export async function loadArcTasks(dir: string): Promise<EvalTask[]> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw invalid(
      `Cannot read the ARC task directory ${dir}: ${(error as Error).message}`,
      [`tasks: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`],
      error,
    );
  }
  if (names.length === 0) {
    throw invalid(`No ARC task files (*.json) in ${dir}`, [
      'tasks: expected a directory of ARC task files (*.json)',
    ]);
  }
  const tasks: EvalTask[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = await readFile(path, 'utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalid(
        `Invalid ARC task file ${path}: not JSON (${(error as Error).message})`,
        ['file: not JSON'],
        error,
      );
    }
    tasks.push(...arcTasksFromFile(value, { id: basename(name, '.json'), source: path }));
  }
  return tasks;
}

function parseArcTaskFile(value: unknown, source: string): ArcTaskFile {
  const parsed = arcTaskFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 5).map((issue) => {
    const field = issue.path
      .map((part, index) =>
        typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
      )
      .join('');
    return `${field === '' ? '(file)' : field}: ${issue.message}`;
  });
  return invalidFile(source, issues);
}

function invalidFile(source: string, issues: string[]): never {
  throw invalid(`Invalid ARC task file ${source}: ${issues.join('; ')}`, issues);
}

function invalid(
  message: string,
  issues: string[],
  cause?: unknown,
): RlmError<'eval.invalid_task'> {
  return new RlmError({
    code: 'eval.invalid_task',
    message,
    details: { line: undefined, issues },
    ...(cause === undefined ? {} : { cause }),
  });
}
