import { escapeHtml } from './escape-html.js';
import { formatCost, formatCount, formatDuration } from './format-units.js';
import type { TraceBlock, TraceRun, TraceSubcall, TraceTree, TraceTurn } from './trace-tree.js';

/**
 * The trace view as an HTML fragment: a summary of the root run, then the tree of runs with each
 * turn's model response, code blocks and their output, sub-calls (an `rlm_query` child nested in
 * place under the call that started it) and usage. It is a pure function of the tree, so the same
 * events give byte-identical HTML in `rlm trace --html` and on the server's run page. Every piece
 * of text is escaped; there are no scripts, styles or links. Style it with `TRACE_CSS`.
 *
 * Each `<details>` has a `data-key` that is stable across renders of a growing tree, so a live
 * page can keep what the reader opened or closed when it swaps in a newer fragment.
 *
 * @example
 * const tree = new TraceTree();
 * for (const event of events) tree.apply(event);
 * element.innerHTML = renderRunHtml(tree);
 */
export function renderRunHtml(tree: TraceTree): string {
  const root = tree.root;
  if (root === undefined) {
    return '<div class="rlm-trace">\n<p class="empty">No run events yet.</p>\n</div>\n';
  }
  const started = tree.startedAt === undefined ? '—' : new Date(tree.startedAt).toISOString();
  return `<div class="rlm-trace" data-root-run-id="${escapeHtml(root.runId)}">
<dl class="summary">
${item('Query', root.query)}
${item('Model', root.model)}
${item('Status', root.status ?? 'not finished')}
${item('Turns', String(root.iterations.length))}
${item('Tokens', `${formatCount(tree.inputTokens)} in / ${formatCount(tree.outputTokens)} out`)}
${item('Cost', formatCost(tree.costUsd))}
${item('Duration', root.durationMs === undefined ? '—' : formatDuration(root.durationMs))}
${item('Started', started)}
</dl>
${renderRun(tree, root)}
</div>
`;
}

function renderRun(tree: TraceTree, run: TraceRun): string {
  const turns = run.iterations.map((turn) => renderTurn(tree, run, turn)).join('\n');
  const notes = run.notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('\n');
  const answer =
    run.answer !== undefined
      ? `<div class="answer"><h4>Answer (${escapeHtml(run.answer.source)})</h4><pre>${escapeHtml(run.answer.text)}</pre></div>`
      : run.status !== undefined
        ? `<p class="status">Ended: ${escapeHtml(run.status)}</p>`
        : '';
  const linked = new Set(
    run.iterations.flatMap((turn) => turn.subcalls.map((call) => call.childRunId)),
  );
  // Children whose starting sub-call was not seen (a trace cut short) still show, under their parent.
  const orphans = [...tree.runs.values()]
    .filter((child) => child.parentRunId === run.runId && !linked.has(child.runId))
    .map((child) => renderRun(tree, child))
    .join('\n');
  return `<section class="run depth-${run.depth}" data-run-id="${escapeHtml(run.runId)}" data-depth="${run.depth}">
<h2>Run ${escapeHtml(run.runId)} <span class="meta">depth ${run.depth} · ${escapeHtml(run.model)}</span></h2>
${turns}
${notes}
${answer}
${orphans}
</section>`;
}

function renderTurn(tree: TraceTree, run: TraceRun, turn: TraceTurn): string {
  const failed = turn.blocks.some((block) => block.state === 'error');
  const key = `${run.runId}/turn-${turn.iteration}`;
  const response =
    turn.response === undefined
      ? ''
      : `<details class="response" data-key="${escapeHtml(`${key}/response`)}"><summary>Model response</summary><pre>${escapeHtml(turn.response)}</pre></details>`;
  return `<details class="turn${failed ? ' failed' : ''}" data-key="${escapeHtml(key)}" data-turn="${turn.iteration}" open>
<summary>Turn ${turn.iteration + 1} <span class="meta">${escapeHtml(turnMeta(tree, run, turn))}</span></summary>
${response}
${turn.blocks.map(renderBlock).join('\n')}
${turn.subcalls.map((call) => renderSubcall(tree, call)).join('\n')}
</details>`;
}

/** `2 blocks · 1 sub-call · 3.1s · 1,234 tokens · $0.0021`, or what the turn is waiting for. */
function turnMeta(tree: TraceTree, run: TraceRun, turn: TraceTurn): string {
  const { blocks, subcalls, usage } = turn;
  const ongoing = turn.durationMs === undefined && run.status === undefined;
  return [
    `${blocks.length} block${blocks.length === 1 ? '' : 's'}`,
    subcalls.length > 0 ? `${subcalls.length} sub-call${subcalls.length === 1 ? '' : 's'}` : '',
    turn.durationMs === undefined ? '' : formatDuration(turn.durationMs),
    usage.modelCalls > 0
      ? `${formatCount(usage.inputTokens + usage.outputTokens)} tokens · ${formatCost(usage.costUsd)}`
      : '',
    ongoing && tree.isWaiting(run.runId) ? 'waiting for the model…' : '',
  ]
    .filter((part) => part !== '')
    .join(' · ');
}

function renderBlock(block: TraceBlock): string {
  const output =
    block.state === 'running'
      ? '<pre class="empty">(running…)</pre>'
      : block.stdout === ''
        ? '<pre class="empty">(no output)</pre>'
        : `<pre class="stdout">${escapeHtml(block.stdout)}</pre>`;
  const stderr = block.stderr === '' ? '' : `<pre class="stderr">${escapeHtml(block.stderr)}</pre>`;
  const error =
    block.error === undefined ? '' : `<pre class="error">${escapeHtml(block.error)}</pre>`;
  const took = block.executionTime === undefined ? '' : ` · ${formatDuration(block.executionTime)}`;
  return `<div class="block ${block.state}" data-block="${block.index}">
<h4>Block ${block.index + 1}<span class="meta">${took}</span></h4>
<pre class="code">${escapeHtml(block.code)}</pre>
${output}${stderr}${error}
</div>`;
}

function renderSubcall(tree: TraceTree, call: TraceSubcall): string {
  const name = call.kind === 'rlm' ? 'rlm_query' : 'llm_query';
  const child = call.childRunId === undefined ? undefined : tree.runs.get(call.childRunId);
  const took = call.durationMs === undefined ? '' : ` · ${formatDuration(call.durationMs)}`;
  const reply = call.responsePreview ?? (call.state === 'running' ? '(running…)' : '(no reply)');
  return `<div class="subcall ${call.state}" data-kind="${call.kind}">
<h4>${name} <span class="meta">${escapeHtml(call.model)}${took}</span></h4>
<pre class="prompt">${escapeHtml(call.promptPreview)}</pre>
<pre class="reply">${escapeHtml(reply)}</pre>
${child === undefined ? '' : renderRun(tree, child)}
</div>`;
}

function item(label: string, value: string): string {
  return `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;
}
