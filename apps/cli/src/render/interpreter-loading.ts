import type { ReplLanguage, RunEvent } from '@rlm/protocol';
import { formatDuration } from '@rlm/trace';

/** The line shown while the root's Python interpreter loads (Pyodide: seconds, 10+ when busy). */
export const LOADING_PYTHON_LINE = 'loading the Python interpreter (Pyodide)…';

/**
 * Follows the root run's interpreter start. A Python run says `run-start` and then nothing until
 * the interpreter is ready (its first `iteration-start`), which looked like a hang.
 */
export interface InterpreterLoading {
  /** Feeds an event; returns the line to print for it, if any. */
  onEvent(event: RunEvent): string | undefined;
  /** When the interpreter began loading, while it loads. */
  readonly since: number | undefined;
}

/**
 * `repl` is the language the CLI configured: a resumed run's `run-resume` event does not say it,
 * and its interpreter loads all the same.
 */
export function createInterpreterLoading({
  repl,
}: {
  repl?: ReplLanguage | undefined;
} = {}): InterpreterLoading {
  let since: number | undefined;
  return {
    get since() {
      return since;
    },
    onEvent(event) {
      if (event.depth !== 0) return undefined;
      const python =
        (event.type === 'run-start' && (event.repl ?? repl) === 'python') ||
        (event.type === 'run-resume' && repl === 'python');
      if (python) {
        since = event.at;
        return `${LOADING_PYTHON_LINE} (the first turn starts once it is ready)`;
      }
      if (since !== undefined && (event.type === 'iteration-start' || event.type === 'run-end')) {
        const took = event.at - since;
        since = undefined;
        return event.type === 'run-end'
          ? undefined
          : `Python interpreter ready in ${formatDuration(took)}`;
      }
      return undefined;
    },
  };
}
