import type { RunEvent } from '@rlm/protocol';
import { TraceTree } from '@rlm/trace';
import { createLogUpdate } from 'log-update';
import type { OutputStream } from '../cli-io.js';
import { formatPlainEvent } from './format-plain-event.js';
import { renderRunTree } from './render-run-tree.js';

/** How progress is shown: a redrawn tree, one line per event, or nothing. */
export type ProgressMode = 'tty' | 'plain' | 'quiet';

export interface ProgressReporterOptions {
  stream: OutputStream;
  mode: ProgressMode;
  now(): number;
  /** @default mode === 'tty' */
  color?: boolean;
}

/** Receives a run's events and shows them; `stop` draws the last frame and releases the terminal. */
export interface ProgressReporter {
  readonly tree: TraceTree;
  onEvent(event: RunEvent): void;
  /** Prints a line above the live view (or as a plain line). */
  note(text: string): void;
  stop(): void;
}

/** Redraws at most this often; events can arrive far faster than a terminal can show them. */
const FRAME_MS = 100;
/** Redraw this often without events, so elapsed time keeps moving while the model thinks. */
const TICK_MS = 500;

/** Creates the progress view for `rlm run` on stderr. */
export function createProgressReporter({
  stream,
  mode,
  now,
  color = mode === 'tty',
}: ProgressReporterOptions): ProgressReporter {
  const tree = new TraceTree();
  if (mode === 'quiet') {
    return { tree, onEvent: (event) => tree.apply(event), note() {}, stop() {} };
  }
  if (mode === 'plain') {
    return {
      tree,
      onEvent(event) {
        tree.apply(event);
        const line = formatPlainEvent(event, tree);
        if (line !== undefined) stream.write(`${line}\n`);
      },
      note: (text) => stream.write(`${text}\n`),
      stop() {},
    };
  }
  return createLiveReporter(tree, { stream, now, color });
}

function createLiveReporter(
  tree: TraceTree,
  { stream, now, color }: { stream: OutputStream; now(): number; color: boolean },
): ProgressReporter {
  const log = createLogUpdate(stream as NodeJS.WriteStream);
  let pending: NodeJS.Timeout | undefined;
  let stopped = false;
  const draw = () => {
    pending = undefined;
    const rows = Math.max(5, (stream.rows ?? 24) - 2);
    const lines = renderRunTree(tree, {
      now: now(),
      width: stream.columns ?? 100,
      color,
      detail: 'live',
    });
    // Keep the status header and the newest lines when the tree outgrows the screen.
    const shown =
      lines.length > rows ? [lines[0] ?? '', '  …', ...lines.slice(-(rows - 2))] : lines;
    log(shown.map((line) => clip(line, stream.columns ?? 100)).join('\n'));
  };
  const ticker = setInterval(draw, TICK_MS);
  ticker.unref();
  return {
    tree,
    onEvent(event) {
      tree.apply(event);
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
