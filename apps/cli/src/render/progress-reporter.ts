import type { ReplLanguage, RunEvent } from '@rlm/protocol';
import { formatDuration, TraceTree } from '@rlm/trace';
import type { OutputStream } from '../cli-io.js';
import type { ProgressMode } from '../config/config-schema.js';
import { createInterpreterLoading, LOADING_PYTHON_LINE } from './interpreter-loading.js';
import { createPlainProgress } from './plain-progress.js';
import { renderRunTree } from './render-run-tree.js';

export interface ProgressReporterOptions {
  stream: OutputStream;
  mode: ProgressMode;
  now(): number;
  /** @default mode === 'tree' */
  color?: boolean;
  /** The run's REPL language, for the line while its interpreter loads. */
  repl?: ReplLanguage | undefined;
}

/** Receives a run's events and shows them; `stop` draws the last frame and releases the terminal. */
export interface ProgressReporter {
  readonly tree: TraceTree;
  onEvent(event: RunEvent): void;
  /** Prints a line above the live view (or as a plain line). */
  note(text: string): void;
  stop(): void;
}

/** What the live view draws with: log-update's redrawing writer. */
type LiveLog = ReturnType<typeof import('log-update').createLogUpdate>;

/** The width log-update wraps at when the stream is not a terminal (`--progress tree` in a pipe). */
const DEFAULT_COLUMNS = 80;
/** Redraws at most this often; events can arrive far faster than a terminal can show them. */
const FRAME_MS = 100;
/** Redraw this often without events, so elapsed time keeps moving while the model thinks. */
const TICK_MS = 500;

/**
 * Creates the progress view of `rlm run` and `rlm resume` on stderr: a live tree, plain lines, or
 * none. The live tree's terminal code (log-update and the ANSI width tables it loads, ~20 ms of a
 * fresh process's CPU) is imported only for that mode: runs in a pipe or a log never load it.
 */
export async function createProgressReporter({
  stream,
  mode,
  now,
  color = mode === 'tree',
  repl,
}: ProgressReporterOptions): Promise<ProgressReporter> {
  const tree = new TraceTree();
  if (mode === 'none') {
    return { tree, onEvent: (event) => tree.apply(event), note() {}, stop() {} };
  }
  if (mode === 'plain') {
    const plain = createPlainProgress({
      tree,
      write: (line) => stream.write(`${line}\n`),
      repl,
    });
    const ticker = setInterval(() => plain.tick(now()), TICK_MS);
    ticker.unref();
    return {
      tree,
      onEvent(event) {
        tree.apply(event);
        plain.onEvent(event);
      },
      note: (text) => stream.write(`${text}\n`),
      stop: () => clearInterval(ticker),
    };
  }
  const { createLogUpdate } = await import('log-update');
  const log = createLogUpdate(stream as NodeJS.WriteStream);
  return createLiveReporter(tree, log, { stream, now, color, repl });
}

function createLiveReporter(
  tree: TraceTree,
  log: LiveLog,
  {
    stream,
    now,
    color,
    repl,
  }: { stream: OutputStream; now(): number; color: boolean; repl: ReplLanguage | undefined },
): ProgressReporter {
  const interpreter = createInterpreterLoading({ repl });
  let pending: NodeJS.Timeout | undefined;
  let stopped = false;
  const draw = () => {
    pending = undefined;
    const rows = Math.max(5, (stream.rows ?? 24) - 2);
    const at = now();
    const lines = renderRunTree(tree, {
      now: at,
      width: stream.columns ?? DEFAULT_COLUMNS,
      color,
      detail: 'live',
    });
    if (interpreter.since !== undefined) {
      lines.push(`  ${LOADING_PYTHON_LINE} ${formatDuration(Math.max(0, at - interpreter.since))}`);
    }
    // Keep the status header and the newest lines when the tree outgrows the screen.
    const shown =
      lines.length > rows ? [lines[0] ?? '', '  …', ...lines.slice(-(rows - 2))] : lines;
    log(shown.map((line) => clip(line, stream.columns ?? DEFAULT_COLUMNS)).join('\n'));
  };
  const ticker = setInterval(draw, TICK_MS);
  ticker.unref();
  return {
    tree,
    onEvent(event) {
      tree.apply(event);
      interpreter.onEvent(event);
      if (!stopped && pending === undefined) {
        pending = setTimeout(draw, FRAME_MS);
        pending.unref();
      }
    },
    note(text) {
      log.clear();
      stream.write(`${text}\n`);
      draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(ticker);
      if (pending !== undefined) clearTimeout(pending);
      draw();
      log.done();
    },
  };
}

/** Cuts a line to the terminal width (ANSI codes do not count), so one tree row is one screen row. */
function clip(line: string, columns: number): string {
  let visible = 0;
  let out = '';
  for (let index = 0; index < line.length; index += 1) {
    const rest = line.slice(index);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI color codes start with ESC.
    const ansi = /^\u001b\[[0-9;]*m/.exec(rest);
    if (ansi !== null) {
      out += ansi[0];
      index += ansi[0].length - 1;
      continue;
    }
    if (visible >= columns - 1) return `${out}\u001b[0m`;
    out += line[index];
    visible += 1;
  }
  return out;
}
