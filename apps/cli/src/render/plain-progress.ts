import type { ReplLanguage, RunEvent } from '@rlm/protocol';
import {
  formatCost,
  formatCount,
  formatDuration,
  type TraceTree,
  type TraceTurn,
} from '@rlm/trace';
import { createInterpreterLoading, LOADING_PYTHON_LINE } from './interpreter-loading.js';
import { oneLine } from './one-line.js';

/** Within a turn, a progress line at most this often (and only when something happened). */
export const PLAIN_PROGRESS_INTERVAL_MS = 1_000;

/** While nothing happens (a long model call), a line at most this often, so a log shows life. */
export const PLAIN_IDLE_INTERVAL_MS = 10_000;

/** Sub-calls of the current root turn, over the whole tree (children's included). */
interface TurnCalls {
  llm: number;
  rlm: number;
  failed: number;
  models: Set<string>;
}

/** Writes progress lines for a log: what `createPlainProgress` returns. */
export interface PlainProgress {
  onEvent(event: RunEvent): void;
  /** Called on a timer: writes a line when the run has been silent for the idle interval. */
  tick(at: number): void;
}

/**
 * Progress for a stderr that is not a terminal (CI logs, pipes): one line when the run starts,
 * one summary line per root turn, at most one line per second while a turn runs (written when
 * an event arrives), one per ten seconds while nothing happens (a long model call), and the
 * root's limits, errors and ending. A turn that makes 3,000 sub-calls
 * is a handful of lines, not 3,000. Events are applied to `tree` by the caller first.
 */
export function createPlainProgress({
  tree,
  write,
  intervalMs = PLAIN_PROGRESS_INTERVAL_MS,
  idleMs = PLAIN_IDLE_INTERVAL_MS,
  repl,
}: {
  tree: TraceTree;
  write(line: string): void;
  intervalMs?: number;
  idleMs?: number;
  /** The run's REPL language as configured (a resumed run's events do not say it). */
  repl?: ReplLanguage | undefined;
}): PlainProgress {
  let calls = newTurnCalls();
  let lastLineAt = Number.NEGATIVE_INFINITY;
  let running = false;
  const interpreter = createInterpreterLoading({ repl });
  const line = (text: string, at: number) => {
    write(text);
    lastLineAt = at;
  };
  const idleLine = (at: number) =>
    interpreter.since === undefined
      ? heartbeat(tree, calls, at)
      : `${LOADING_PYTHON_LINE} ${formatDuration(Math.max(0, at - interpreter.since))}`;
  return {
    onEvent(event) {
      const root = event.depth === 0;
      if (root) running = isRunning(event, running);
      countCall(calls, event);
      const text = root ? rootLine(event, tree, calls) : undefined;
      const loading = interpreter.onEvent(event);
      if (text !== undefined) line(text, event.at);
      if (loading !== undefined) line(loading, event.at);
      if (text !== undefined || loading !== undefined) {
        if (event.type === 'iteration-end') calls = newTurnCalls();
        return;
      }
      // Every other event is progress; say so at most once per interval.
      if (event.at - lastLineAt >= intervalMs) line(heartbeat(tree, calls, event.at), event.at);
    },
    tick(at) {
      if (running && at - lastLineAt >= idleMs) line(idleLine(at), at);
    },
  };
}

/** Whether the root run is going after its event `event` (it was if `before`). */
function isRunning(event: RunEvent, before: boolean): boolean {
  if (event.type === 'run-start' || event.type === 'run-resume') return true;
  return event.type === 'run-end' ? false : before;
}

/** Counts a sub-call of any run in the tree toward the current root turn. */
function countCall(calls: TurnCalls, event: RunEvent): void {
  if (event.type === 'subcall-start') {
    calls[event.kind] += 1;
    calls.models.add(event.model);
  }
  if (event.type === 'subcall-end' && !event.ok) calls.failed += 1;
}

function newTurnCalls(): TurnCalls {
  return { llm: 0, rlm: 0, failed: 0, models: new Set() };
}

/** The line a root event gets at once, or `undefined` for events that only count. */
function rootLine(event: RunEvent, tree: TraceTree, calls: TurnCalls): string | undefined {
  switch (event.type) {
    case 'run-start':
      return `run ${event.runId} started: model ${event.model}, up to ${event.maxIterations} turns`;
    case 'run-resume':
      return `run ${event.runId} resumed at turn ${event.fromIteration + 1}: model ${event.model}`;
    case 'iteration-end': {
      const turn = tree.root?.iterations.find((item) => item.iteration === event.iteration);
      const parts = turn === undefined ? [] : blockParts(turn);
      return `turn ${event.iteration + 1} done in ${formatDuration(event.durationMs)}: ${[...parts, ...callParts(calls)].join(', ') || 'no code'} · ${totals(tree)}`;
    }
    case 'limit-hit':
      return `limit hit: ${event.limit} (${event.used} of ${event.max})`;
    case 'error':
      return `error ${event.error.code}: ${event.error.message}`;
    case 'final-answer':
      return `final answer (${event.source})`;
    case 'run-end':
      return `${event.status} in ${formatDuration(event.durationMs)}: ${event.iterations} turn${event.iterations === 1 ? '' : 's'} · ${totals(tree)}`;
    default:
      return undefined;
  }
}

/** What the current root turn has done so far, for a line while it runs. */
function heartbeat(tree: TraceTree, calls: TurnCalls, at: number): string {
  const turn = tree.root?.iterations.at(-1);
  if (turn === undefined) return `starting… · ${totals(tree)}`;
  const running = turn.blocks.find((block) => block.state === 'running');
  const parts = [
    ...callParts(calls, ' so far'),
    ...(running === undefined ? [] : [`block ${running.index + 1} running`]),
  ];
  const elapsed = formatDuration(Math.max(0, at - turn.startedAt));
  return `turn ${turn.iteration + 1} … ${elapsed}: ${parts.join(', ') || 'waiting for the model'} · ${totals(tree)}`;
}

function blockParts(turn: TraceTurn): string[] {
  const [first] = turn.blocks;
  if (first === undefined) return [];
  const count = `${turn.blocks.length} block${turn.blocks.length === 1 ? '' : 's'}`;
  const failed = turn.blocks.filter((block) => block.state === 'error');
  const firstError = failed[0]?.error;
  return [
    `${count} (${oneLine(first.code, 50)})`,
    ...(firstError === undefined ? [] : [`${failed.length} failed: ${oneLine(firstError, 80)}`]),
  ];
}

function callParts(calls: TurnCalls, suffix = ''): string[] {
  const models = [...calls.models];
  const shown = models.length > 2 ? `${models.slice(0, 2).join(', ')}, …` : models.join(', ');
  const parts: string[] = [];
  if (calls.llm > 0) parts.push(`${formatCount(calls.llm)} llm_query${suffix}`);
  if (calls.rlm > 0) parts.push(`${formatCount(calls.rlm)} rlm_query${suffix}`);
  if (parts.length > 0) parts[parts.length - 1] += ` → ${shown}`;
  if (calls.failed > 0) parts.push(`${formatCount(calls.failed)} failed`);
  return parts;
}

function totals(tree: TraceTree): string {
  return `${formatCount(tree.inputTokens + tree.outputTokens)} tokens · ${formatCost(tree.costUsd)}`;
}
