import { formatCost, formatCount, formatDuration } from './format-units.js';
import { type HtmlFragment, html, joinHtml } from './html.js';
import type { TraceBlock, TraceRun, TraceSubcall, TraceTree, TraceTurn } from './trace-tree.js';

/**
 * The trace view as an HTML fragment: a summary of the root run, then the tree of runs with each
 * turn's model response, code blocks and their output, sub-calls (an `rlm_query` child nested in
 * place under the call that started it) and usage. It is a pure function of the tree, so the same
 * events give byte-identical HTML in `rlm trace --html` and on the server's run page. It is
 * written with the `html` template, so every piece of text is escaped; there are no scripts,
 * styles or links. Style it with `TRACE_CSS`.
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
  return renderRunFragment(tree).toString();
}

/** `renderRunHtml` as a fragment, for pages built with `html`. */
export function renderRunFragment(tree: TraceTree): HtmlFragment {
  const root = tree.root;
  if (root === undefined) {
    return html`<div class="rlm-trace">
<p class="empty">No run events yet.</p>
</div>
`;
  }
  const started = tree.startedAt === undefined ? '—' : new Date(tree.startedAt).toISOString();
  return html`<div class="rlm-trace" data-root-run-id="${root.runId}">
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

function renderRun(tree: TraceTree, run: TraceRun): HtmlFragment {
  const turns = joinHtml(
    run.iterations.map((turn) => renderTurn(tree, run, turn)),
    '\n',
  );
  const notes = joinHtml(
    run.notes.map((note) => html`<p class="note">${note}</p>`),
    '\n',
  );
  const answer =
    run.answer !== undefined
      ? html`<div class="answer"><h4>Answer (${run.answer.source})</h4><pre>${run.answer.text}</pre></div>`
      : run.status !== undefined
        ? html`<p class="status">Ended: ${run.status}</p>`
        : '';
  const linked = new Set(
    run.iterations.flatMap((turn) => turn.subcalls.map((call) => call.childRunId)),
  );
  // Children whose starting sub-call was not seen (a trace cut short) still show, under their parent.
  const orphans = joinHtml(
    [...tree.runs.values()]
      .filter((child) => child.parentRunId === run.runId && !linked.has(child.runId))
      .map((child) => renderRun(tree, child)),
    '\n',
  );
  return html`<section class="run depth-${run.depth}" data-run-id="${run.runId}" data-depth="${run.depth}">
<h2>Run ${run.runId} <span class="meta">depth ${run.depth} · ${run.model}</span></h2>
${turns}
${notes}
${answer}
${orphans}
</section>`;
}

function renderTurn(tree: TraceTree, run: TraceRun, turn: TraceTurn): HtmlFragment {
  const failed = turn.blocks.some((block) => block.state === 'error');
  const key = `${run.runId}/turn-${turn.iteration}`;
  const response =
    turn.response === undefined
      ? ''
      : html`<details class="response" data-key="${`${key}/response`}"><summary>Model response</summary><pre>${turn.response}</pre></details>`;
  return html`<details class="turn${failed ? ' failed' : ''}" data-key="${key}" data-turn="${turn.iteration}" open>
<summary>Turn ${turn.iteration + 1} <span class="meta">${turnMeta(tree, run, turn)}</span></summary>
${response}
${joinHtml(turn.blocks.map(renderBlock), '\n')}
${joinHtml(
  turn.subcalls.map((call) => renderSubcall(tree, call)),
  '\n',
)}
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

function renderBlock(block: TraceBlock): HtmlFragment {
  const output =
    block.state === 'running'
      ? html`<pre class="empty">(running…)</pre>`
      : block.stdout === ''
        ? html`<pre class="empty">(no output)</pre>`
        : html`<pre class="stdout">${block.stdout}</pre>`;
  const stderr = block.stderr === '' ? '' : html`<pre class="stderr">${block.stderr}</pre>`;
  const error = block.error === undefined ? '' : html`<pre class="error">${block.error}</pre>`;
  const took = block.executionTime === undefined ? '' : ` · ${formatDuration(block.executionTime)}`;
  return html`<div class="block ${block.state}" data-block="${block.index}">
<h4>Block ${block.index + 1}<span class="meta">${took}</span></h4>
<pre class="code">${block.code}</pre>
${output}${stderr}${error}
</div>`;
}

function renderSubcall(tree: TraceTree, call: TraceSubcall): HtmlFragment {
  const name = call.kind === 'rlm' ? 'rlm_query' : 'llm_query';
  const child = call.childRunId === undefined ? undefined : tree.runs.get(call.childRunId);
  const took = call.durationMs === undefined ? '' : ` · ${formatDuration(call.durationMs)}`;
  const reply = call.responsePreview ?? (call.state === 'running' ? '(running…)' : '(no reply)');
  return html`<div class="subcall ${call.state}" data-kind="${call.kind}">
<h4>${name} <span class="meta">${call.model}${took}</span></h4>
<pre class="prompt">${call.promptPreview}</pre>
<pre class="reply">${reply}</pre>
${child === undefined ? '' : renderRun(tree, child)}
</div>`;
}

function item(label: string, value: string): HtmlFragment {
  return html`<dt>${label}</dt><dd>${value}</dd>`;
}
