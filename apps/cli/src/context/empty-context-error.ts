import { RlmError } from '@rlm/protocol';
import { glob } from 'tinyglobby';

/** Why a file of a directory or glob context was left out. */
type SkipReason = 'binary' | `excluded by ${string}` | 'hidden' | 'not matched by --include';

export interface EmptyContextOptions {
  /** The `--context` argument as given. */
  label: string;
  /** The directory the context was read from (the cwd, for a glob). */
  dir: string;
  /** Files read and found binary, relative to `dir`. */
  binary: readonly string[];
  /** The directory's `--include` globs (none for a glob context: its pattern is the include). */
  include: readonly string[];
  exclude: readonly string[];
  kind: 'directory' | 'glob';
}

/** Files named per reason in the message. */
const SHOWN_PER_REASON = 3;

/**
 * The error for a directory or glob context that left no text file to read: it lists what was
 * skipped and why (binary, excluded by which pattern, hidden, not matched by `--include`), so
 * nobody runs a model on an empty context by mistake.
 */
export async function emptyContextError(options: EmptyContextOptions): Promise<RlmError> {
  const skipped = await skippedFiles(options);
  const noun = options.kind === 'directory' ? 'Context directory' : 'Context pattern';
  const message =
    skipped.length === 0
      ? `${noun} ${options.label} is empty; pass a directory with text files in it.`
      : `${noun} ${options.label} has no text file to read: ${describeSkipped(skipped)}; pass text files, or change --include/--exclude.`;
  return new RlmError({
    code: 'cli.context_empty',
    message,
    // The message groups them all; the details keep the first hundred (node_modules can be huge).
    details: { path: options.label, skipped: skipped.slice(0, 100) },
  });
}

async function skippedFiles({
  dir,
  binary,
  include,
  exclude,
  kind,
}: EmptyContextOptions): Promise<{ file: string; reason: SkipReason }[]> {
  if (kind === 'glob') return binary.map((file) => ({ file, reason: 'binary' as const }));
  const all = (await glob(['**/*'], { cwd: dir, dot: true })).sort();
  const excludedBy = new Map<string, string>();
  for (const pattern of exclude) {
    for (const file of await glob([pattern], { cwd: dir, dot: true })) {
      if (!excludedBy.has(file)) excludedBy.set(file, pattern);
    }
  }
  const included =
    include.length === 0 ? undefined : new Set(await glob([...include], { cwd: dir, dot: true }));
  const binarySet = new Set(binary);
  return all.map((file) => {
    const pattern = excludedBy.get(file);
    const reason: SkipReason = binarySet.has(file)
      ? 'binary'
      : pattern !== undefined
        ? `excluded by ${pattern}`
        : included !== undefined && !included.has(file)
          ? 'not matched by --include'
          : 'hidden';
    return { file, reason };
  });
}

/** `3 binary (a.png, b.png, c.png), 120 excluded by **∕node_modules∕** (…, …, …, …)`. */
function describeSkipped(skipped: readonly { file: string; reason: string }[]): string {
  const byReason = new Map<string, string[]>();
  for (const { file, reason } of skipped) {
    byReason.set(reason, [...(byReason.get(reason) ?? []), file]);
  }
  const parts = [...byReason].map(([reason, files]) => {
    const shown = files.slice(0, SHOWN_PER_REASON).join(', ');
    const more = files.length > SHOWN_PER_REASON ? ', …' : '';
    const what = reason === 'hidden' ? 'hidden (a name starting with a dot)' : reason;
    return `${files.length} ${files.length === 1 ? 'file' : 'files'} ${what} (${shown}${more})`;
  });
  return `skipped ${parts.join(', ')}`;
}

/**
 * Refuses a file or standard input with no text: a model run on it can only answer "not found",
 * which reads as an answer. Whitespace counts as nothing (`echo | rlm …` sends one newline).
 *
 * @throws RlmError `cli.context_empty`
 */
export function assertHasText(text: string, kind: 'file' | 'stdin', label: string): void {
  // A search, not a trim: it stops at the first character of a 100 MB context.
  if (/\S/.test(text)) return;
  const what = text === '' ? 'is empty' : 'has only whitespace';
  const message =
    kind === 'stdin'
      ? `Standard input (--context -) ${what}; pipe text into rlm, e.g. cat notes.txt | rlm run "…" --context -.`
      : `Context file ${label} ${what}; pass a file with text in it.`;
  throw new RlmError({
    code: 'cli.context_empty',
    message,
    details: { path: kind === 'stdin' ? '-' : label, skipped: [] },
  });
}
