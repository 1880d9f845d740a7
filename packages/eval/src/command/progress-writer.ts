import { type EvalProgress, formatProgress } from '../runner/eval-progress.js';

/** Shows eval progress on stderr; `stop` finishes the line a terminal redraws. */
export interface ProgressWriter {
  update(progress: EvalProgress): void;
  stop(): void;
}

/** At most one plain line per this many milliseconds (the last attempt's line always shows). */
export const PLAIN_PROGRESS_INTERVAL_MS = 1_000;

/**
 * `tree` redraws one line in place (a terminal), `plain` writes a line at most once a second and
 * for the last attempt (logs, pipes: a thousand quick attempts are not a thousand lines), `none`
 * writes nothing.
 */
export function createProgressWriter(
  stream: { write(text: string): unknown },
  { mode, now }: { mode: 'tree' | 'plain' | 'none'; now: () => number },
): ProgressWriter {
  let drawn = false;
  let lastLineAt: number | undefined;
  return {
    update(progress) {
      if (mode === 'none') return;
      const line = formatProgress(progress);
      if (mode === 'tree') {
        // \x1b[K clears what a longer previous line left.
        stream.write(`\r${line}\x1b[K`);
        drawn = true;
        return;
      }
      const at = now();
      const last = progress.completed >= progress.total;
      if (!last && lastLineAt !== undefined && at - lastLineAt < PLAIN_PROGRESS_INTERVAL_MS) return;
      lastLineAt = at;
      stream.write(`${line}\n`);
    },
    stop() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
