import {
  formatCost,
  formatCount,
  formatDuration,
  linesText,
  subcallMarks,
  type TraceBlock,
  type TraceRun,
  type TraceSubcall,
  type TraceTree,
  type TraceTurn,
} from '@rlm/trace';
import pc from 'picocolors';
import { oneLine } from './one-line.js';

export interface RenderRunTreeOptions {
  /** Epoch ms for elapsed times of unfinished runs. */
  now: number;
  /** Terminal width; previews are cut to fit. @default 100 */
  width?: number;
  /** Use ANSI colors. @default false */
  color?: boolean;
  /**
   * `live` folds finished turns of the root into one line each, so the view stays a screen
   * high during long runs; `full` shows everything (for `rlm trace`). @default 'full'
   */
  detail?: 'live' | 'full';
}

type Colors = ReturnType<typeof pc.createColors>;

interface Context {
  tree: TraceTree;
  now: number;
  width: number;
  c: Colors;
  detail: 'live' | 'full';
  lines: string[];
}

/** Renders a run tree as indented text lines: a status header, then turns, blocks and sub-calls. */
export function renderRunTree(
  tree: TraceTree,
  { now, width = 100, color = false, detail = 'full' }: RenderRunTreeOptions,
): string[] {
  const c = pc.createColors(color);
  const context: Context = { tree, now, width, c, detail, lines: [] };
  const root = tree.root;
  if (root === undefined) return [c.dim('rlm: starting…')];
  context.lines.push(header(context, root));
  if (detail === 'full')
    context.lines.push(`  ${c.dim('query:')} ${oneLine(root.query, width - 10)}`);
  renderRun(context, root, 1);
  return context.lines;
}

function header({ tree, now, c }: Context, root: TraceRun): string {
  const turn = root.iterations.at(-1)?.iteration;
  const elapsed = root.durationMs ?? now - root.startedAt;
  const parts = [
    c.bold('rlm'),
    c.cyan(root.model),
    turn === undefined
      ? 'starting'
      : root.status === undefined
        ? `turn ${turn + 1}/${root.maxIterations}`
        : `${root.iterations.length} turns`,
    `${formatCount(tree.inputTokens + tree.outputTokens)} tokens`,
    formatCost(tree.costUsd),
    formatDuration(elapsed),
  ];
  if (tree.cacheHits > 0) {
    parts.push(
      c.green(
        `${formatCount(tree.cacheHits)} cache ${tree.cacheHits === 1 ? 'hit' : 'hits'} (saved ${formatCost(tree.savedCostUsd)})`,
      ),
    );
  }
  if (tree.escalations > 0) {
    parts.push(
      c.yellow(`${tree.escalations} ${tree.escalations === 1 ? 'escalation' : 'escalations'}`),
    );
  }
  if (root.status !== undefined) parts.push(statusText(c, root.status));
  return parts.join(c.dim(' · '));
}

function renderRun(context: Context, run: TraceRun, indent: number): void {
  const { c, detail, lines } = context;
  const pad = '  '.repeat(indent);
  const last = run.iterations.length - 1;
  run.iterations.forEach((turn, position) => {
    const fold = detail === 'live' && run.depth === 0 && position < last;
    if (fold) {
      lines.push(`${pad}${c.dim(`turn ${turn.iteration + 1}`)} ${turnSummary(c, turn)}`);
      return;
    }
    const open = turn.durationMs === undefined && position === last && run.status === undefined;
    const state =
      turn.durationMs !== undefined
        ? c.dim(` ${formatDuration(turn.durationMs)}`)
        : open && context.tree.isWaiting(run.runId)
          ? c.dim(' waiting for the model…')
          : '';
    lines.push(`${pad}${c.bold(`turn ${turn.iteration + 1}`)}${state}`);
    renderTurn(context, turn, indent + 1);
  });
  for (const note of run.notes) lines.push(`${pad}${c.yellow(`! ${note}`)}`);
  if (run.answer !== undefined) {
    const label = c.green(`✓ answer (${run.answer.source})`);
    lines.push(`${pad}${label} ${oneLine(run.answer.text, context.width - pad.length - 20)}`);
  } else if (run.status !== undefined && run.status !== 'completed') {
    lines.push(`${pad}${statusText(c, run.status)}`);
  }
  const linked = new Set(
    run.iterations.flatMap((turn) => turn.subcalls.map((call) => call.childRunId)),
  );
  for (const child of context.tree.runs.values()) {
    if (child.parentRunId === run.runId && !linked.has(child.runId)) {
      lines.push(`${pad}${c.magenta(`↳ child run at depth ${child.depth}`)}`);
      renderRun(context, child, indent + 1);
    }
  }
}

function renderTurn(context: Context, turn: TraceTurn, indent: number): void {
  const pad = '  '.repeat(indent);
  for (const block of turn.blocks)
    context.lines.push(`${pad}${blockLine(context, block, pad.length)}`);
  for (const call of turn.subcalls) {
    const child =
      call.childRunId === undefined ? undefined : context.tree.runs.get(call.childRunId);
    context.lines.push(`${pad}${subcallLine(context.c, call, child?.depth)}`);
    for (const mark of subcallMarks(call)) {
      const colored = mark.startsWith('cache hit') ? context.c.green(mark) : context.c.yellow(mark);
      context.lines.push(`${pad}  ${mark.startsWith('cache hit') ? '⚡' : '⇧'} ${colored}`);
    }
    if (child !== undefined) renderRun(context, child, indent + 1);
  }
}

function blockLine({ c, width }: Context, block: TraceBlock, indent: number): string {
  const preview = oneLine(block.code, Math.min(60, width - indent - 30));
  const outcome =
    block.state === 'running'
      ? c.dim('running…')
      : block.error !== undefined
        ? c.red(oneLine(block.error, 50))
        : c.dim(`→ ${formatCount(block.stdout.length)} chars out`);
  const where = block.lines === undefined ? '' : ` ${c.dim(`(${linesText(block.lines)})`)}`;
  return `${stateMark(c, block.state)} block ${block.index + 1}${where}  ${preview}  ${outcome}`;
}

function subcallLine(c: Colors, call: TraceSubcall, childDepth: number | undefined): string {
  const name = call.kind === 'rlm' ? 'rlm_query' : 'llm_query';
  const fn = childDepth === undefined ? name : `${name} depth ${childDepth}`;
  const took = call.durationMs === undefined ? '' : c.dim(` ${formatDuration(call.durationMs)}`);
  const prompt = oneLine(call.promptPreview, 40);
  const reply = call.responsePreview === undefined ? '' : ` → ${oneLine(call.responsePreview, 30)}`;
  return `${c.magenta(`↳ ${fn}`)} ${c.dim(call.model)} ${stateMark(c, call.state)} "${prompt}"${reply}${took}`;
}

function stateMark(c: Colors, state: 'running' | 'ok' | 'error'): string {
  return state === 'running' ? c.cyan('…') : state === 'ok' ? c.green('✓') : c.red('✗');
}

function turnSummary(c: Colors, turn: TraceTurn): string {
  const failed = turn.blocks.filter((block) => block.state === 'error').length;
  const parts = [`${turn.blocks.length} block${turn.blocks.length === 1 ? '' : 's'}`];
  if (failed > 0) parts.push(c.red(`${failed} failed`));
  if (turn.subcalls.length > 0) parts.push(`${turn.subcalls.length} sub-calls`);
  if (turn.durationMs !== undefined) parts.push(formatDuration(turn.durationMs));
  return c.dim(parts.join(', '));
}

function statusText(c: Colors, status: string): string {
  return status === 'completed'
    ? c.green(status)
    : status === 'cancelled'
      ? c.yellow(status)
      : c.red(status);
}
