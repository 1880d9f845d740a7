/** A snapshot of an eval in flight, given to `onProgress` after each finished attempt. */
export interface EvalProgress {
  /** Attempts in the whole eval (resumed ones included). */
  total: number;
  /** Attempts with a row, resumed ones included. */
  completed: number;
  /** Rows found in the results file and skipped. */
  resumed: number;
  running: number;
  /** Rows that passed, over `completed`. */
  passed: number;
  /** `passed / completed`, or 0 before any row. */
  accuracy: number;
  /** Cost of every row so far, in USD. */
  costUsd: number;
  /** The cost is nominal (offline `testkit:` models, which cost nothing); the line says so. */
  costNominal?: boolean;
  elapsedMs: number;
  /** Estimated time left from this session's pace; `null` until one attempt finished here. */
  etaMs: number | null;
}

const BAR_WIDTH = 24;

/**
 * One line for a terminal: `[#########---------------] 12/40  30%  ETA 1m20s  acc 75.0%  $0.0123`.
 */
export function formatProgress(progress: EvalProgress): string {
  const fraction = progress.total === 0 ? 1 : progress.completed / progress.total;
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
  const eta = progress.etaMs === null ? 'ETA --' : `ETA ${formatDuration(progress.etaMs)}`;
  return [
    bar,
    `${progress.completed}/${progress.total}`,
    `${Math.round(fraction * 100)}%`,
    eta,
    `acc ${(progress.accuracy * 100).toFixed(1)}%`,
    `$${progress.costUsd.toFixed(4)}${progress.costNominal === true ? ' nominal' : ''}`,
  ].join('  ');
}

/** `850ms`, `42s`, `3m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
