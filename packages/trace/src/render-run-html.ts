import { formatCost, formatCount, formatDuration, linesText } from './format-units.js';
import { type HtmlFragment, html, joinHtml, trustedHtml } from './html.js';
import type { RecordedExchange } from './recorded-exchanges.js';
import { subcallMarks } from './subcall-marks.js';
import type {
  TraceBlock,
  TraceRun,
  TraceSubcall,
  TraceTree,
  TraceTurn,
  TraceUsage,
} from './trace-tree.js';
import { type TraceViewModel, traceViewModel, turnKey } from './trace-view-model.js';

/** Options of `renderRunHtml`. */
export interface RenderRunOptions {
  /**
   * The trajectory's model exchanges (`recordedExchanges(records)`): an `llm_query` then shows
   * its whole prompt and reply, with the slices of the run's contexts when the trajectory was
   * read with them (`rlm trace --context`), and a marked note naming each slice when it was not.
   */
  exchanges?: readonly RecordedExchange[];
}

/**
 * Sub-calls up to which every turn starts open; a bigger tree starts with its turns folded,
 * so a 3,000-call run opens at once (a folded turn's body is built when it is opened).
 */
const OPEN_TURNS_MAX_SUBCALLS = 100;

/** The note `expandTrajectory` leaves for a slice of a context the reader did not have. */
const MISSING_SLICE = /\[\d+ chars of context[^\]\n]*? that context was [^\]\n]*\]/g;

/**
 * The trace viewer's markup: a summary (outcome, answer, turns, sub-calls, tokens, cost, wall
 * time), a search box, the timeline's place, then every run of the tree as a section of
 * collapsible turns with their model response, code blocks, output, errors and sub-calls (an
 * `rlm_query` links to its child's section), and the timeline's data as inert JSON. Each turn's
 * body is inside a `<template>`: inert text until the viewer script (`TRACE_VIEWER_JS`) opens
 * it, which is what keeps a 3,000-sub-call run fast. The script also draws the timeline and runs
 * the search; without it the markup still holds everything.
 *
 * It is a pure function of the tree, so the same events give byte-identical HTML in
 * `rlm trace --html` and on the server's run page. It is written with the `html` template, so
 * every piece of text is escaped. Style it with `TRACE_CSS`.
 *
 * Each `<details>` has a `data-key` that is stable across renders of a growing tree, so a live
 * page can keep what the reader opened or closed when it swaps in a newer fragment.
 *
 * @example
 * const tree = new TraceTree();
 * for (const event of events) tree.apply(event);
 * element.innerHTML = renderRunHtml(tree);
 */
export function renderRunHtml(tree: TraceTree, options: RenderRunOptions = {}): string {
  return renderRunFragment(tree, options).toString();
}

interface RenderContext {
  tree: TraceTree;
  model: TraceViewModel;
  /** Node index by key, so a sub-call's markup names its timeline bar. */
  nodeIndex: Map<string, number>;
  exchanges: Map<string, RecordedExchange>;
  openTurns: boolean;
}

/** `renderRunHtml` as a fragment, for pages built with `html`. */
export function renderRunFragment(tree: TraceTree, options: RenderRunOptions = {}): HtmlFragment {
  const root = tree.root;
  if (root === undefined) {
    return html`<div class="rlm-trace">
<p class="empty">No run events yet.</p>
</div>
`;
  }
  const model = traceViewModel(tree);
  const context: RenderContext = {
    tree,
    model,
    nodeIndex: new Map(model.nodes.map((node, index) => [node.key, index])),
    exchanges: new Map(
      (options.exchanges ?? []).map((exchange) => [
        `${exchange.runId}/${exchange.callId}`,
        exchange,
      ]),
    ),
    openTurns: model.subcalls <= OPEN_TURNS_MAX_SUBCALLS,
  };
  const started = tree.startedAt === undefined ? '—' : new Date(tree.startedAt).toISOString();
  const turns = [...tree.runs.values()].reduce((sum, run) => sum + run.iterations.length, 0);
  const answer = root.answer?.text ?? '—';
  // The model is JSON inside a script element the browser never runs; `<` is escaped so no
  // text in it can close the element.
  const json = JSON.stringify(model).replaceAll('<', '\\u003c');
  return html`<div class="rlm-trace" data-root-run-id="${root.runId}" data-outcome="${model.outcome}">
<dl class="summary" data-testid="summary">
${item('Status', root.status ?? 'not finished', `status outcome ${model.outcome}`)}
${item('Wall time', formatDuration(model.wallMs), 'wall')}
${item('Answer', answer, 'answer')}
${item('Turns', turns === root.iterations.length ? String(turns) : `${root.iterations.length} (${turns} in the tree)`, 'turns')}
${item('Sub-calls', formatCount(model.subcalls), 'subcalls')}
${item('Tokens', `${formatCount(tree.inputTokens)} in / ${formatCount(tree.outputTokens)} out`, 'tokens')}
${item('Cost', formatCost(tree.costUsd), 'cost')}
${savingsItems(tree)}
${item('Model', root.model, 'model')}
${item('Started', started, 'started')}
${item('Query', root.query, 'query')}
</dl>
<div class="toolbar"><input type="search" class="search" data-testid="search" placeholder="Search code, output, errors, prompts and replies" aria-label="Search the trace"><span class="search-count" data-testid="search-count"></span></div>
<section class="timeline" data-testid="timeline" aria-label="Timeline of runs and sub-calls"></section>
<div class="runs">
${joinHtml(
  model.nodes
    .filter((node) => node.kind !== 'llm')
    .map((node) => context.tree.runs.get(node.key))
    .filter((run) => run !== undefined)
    .map((run) => renderRun(context, run)),
  '\n',
)}
</div>
<script type="application/json" class="rlm-trace-model">${trustedHtml(json)}</script>
</div>
`;
}

function renderRun(context: RenderContext, run: TraceRun): HtmlFragment {
  const turns = joinHtml(
    run.iterations.map((turn) => renderTurn(context, run, turn)),
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
  const node = context.model.nodes[context.nodeIndex.get(run.runId) ?? -1];
  const cost =
    node === undefined
      ? ''
      : ` · ${formatCount(node.inputTokens + node.outputTokens)} tokens · ${formatCost(node.costUsd)}`;
  const parent =
    run.parentRunId === null
      ? ''
      : html` · from <a href="#run-${run.parentRunId}">${run.parentRunId}</a>`;
  return html`<section class="run depth-${run.depth}" id="run-${run.runId}" data-run-id="${run.runId}" data-depth="${run.depth}">
<h2>Run ${run.runId} <span class="meta">depth ${run.depth} · ${run.model}${cost}${parent}</span></h2>
${turns}
${notes}
${answer}
</section>`;
}

function renderTurn(context: RenderContext, run: TraceRun, turn: TraceTurn): HtmlFragment {
  const failed =
    turn.blocks.some((block) => block.state === 'error') ||
    turn.subcalls.some((call) => call.state === 'error');
  const key = turnKey(run.runId, turn.iteration);
  const response =
    turn.response === undefined
      ? ''
      : html`<details class="response" data-key="${`${key}/response`}"><summary>Model response</summary><pre>${turn.response}</pre></details>`;
  const body = html`${response}
${joinHtml(turn.blocks.map(renderBlock), '\n')}
${joinHtml(
  turn.subcalls.map((call) => renderSubcall(context, run, call)),
  '\n',
)}`;
  return html`<details class="turn${failed ? ' failed' : ''}" data-key="${key}" data-turn="${turn.iteration}"${context.openTurns ? trustedHtml(' open') : ''}>
<summary>Turn ${turn.iteration + 1} <span class="meta">${turnMeta(context.tree, run, turn)}</span></summary>
<template>${body}</template>
</details>`;
}

/** `2 blocks · 1 sub-call · 3.1s · 1,234 tokens · $0.0021`, or what the turn is waiting for. */
function turnMeta(tree: TraceTree, run: TraceRun, turn: TraceTurn): string {
  const { blocks, subcalls, usage } = turn;
  const ongoing = turn.durationMs === undefined && run.status === undefined;
  const errors = subcalls.filter((call) => call.state === 'error').length;
  return [
    `${blocks.length} block${blocks.length === 1 ? '' : 's'}`,
    subcalls.length > 0 ? `${subcalls.length} sub-call${subcalls.length === 1 ? '' : 's'}` : '',
    errors > 0 ? `${errors} failed` : '',
    turn.durationMs === undefined ? '' : formatDuration(turn.durationMs),
    usage.modelCalls > 0 ? usageText(usage) : '',
    ongoing && tree.isWaiting(run.runId) ? 'waiting for the model…' : '',
  ]
    .filter((part) => part !== '')
    .join(' · ');
}

function usageText(usage: Pick<TraceUsage, 'inputTokens' | 'outputTokens' | 'costUsd'>): string {
  return `${formatCount(usage.inputTokens + usage.outputTokens)} tokens · ${formatCost(usage.costUsd)}`;
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
  const where = block.lines === undefined ? '' : ` · ${linesText(block.lines)} of the response`;
  return html`<div class="block ${block.state}" data-block="${block.index}">
<h4>Block ${block.index + 1}<span class="meta">${where}${took}</span></h4>
<pre class="code">${block.code}</pre>
${output}${stderr}${error}
</div>`;
}

function renderSubcall(context: RenderContext, run: TraceRun, call: TraceSubcall): HtmlFragment {
  const name = call.kind === 'rlm' ? 'rlm_query' : 'llm_query';
  const child = call.childRunId === undefined ? undefined : context.tree.runs.get(call.childRunId);
  const nodeKey = child === undefined ? `${run.runId}/${call.callId}` : child.runId;
  const node = context.model.nodes[context.nodeIndex.get(nodeKey) ?? -1];
  const took = call.durationMs === undefined ? '' : ` · ${formatDuration(call.durationMs)}`;
  const spent =
    node === undefined || node.costUsd + node.inputTokens === 0 ? '' : ` · ${usageText(node)}`;
  const reply = call.responsePreview ?? (call.state === 'running' ? '(running…)' : '(no reply)');
  const link =
    child === undefined
      ? ''
      : html`<p class="child-link"><a href="#run-${child.runId}">Child run ${child.runId} →</a></p>`;
  return html`<div class="subcall ${call.state}" data-kind="${call.kind}" data-node="${context.nodeIndex.get(nodeKey) ?? -1}">
<h4>${name} <span class="meta">${call.model}${took}${spent}</span></h4>
${marksLine(call)}<pre class="prompt">${call.promptPreview}</pre>
<pre class="reply">${reply}</pre>
${fullExchange(context.exchanges.get(`${run.runId}/${call.callId}`))}${link}
</div>`;
}

/** A sub-call's marks (a cache hit, an escalation), each its own line; nothing without marks. */
function marksLine(call: TraceSubcall): HtmlFragment | string {
  const marks = subcallMarks(call);
  if (marks.length === 0) return '';
  return html`<p class="marks">${joinHtml(
    marks.map(
      (mark) =>
        html`<span class="mark ${mark.startsWith('cache hit') ? 'cache-hit' : 'escalation'}">${mark}</span>`,
    ),
    ' ',
  )}</p>
`;
}

/** The summary's cache hits and escalations, when the tree had any. */
function savingsItems(tree: TraceTree): HtmlFragment | string {
  const items: HtmlFragment[] = [];
  if (tree.cacheHits > 0) {
    const saved = `${formatCount(tree.cacheHits)} (saved ${formatCount(tree.savedTokens)} tokens, ${formatCost(tree.savedCostUsd)})`;
    items.push(item('Cache hits', saved, 'cache-hits'));
  }
  if (tree.escalations > 0) {
    items.push(item('Escalations', formatCount(tree.escalations), 'escalations'));
  }
  return items.length === 0 ? '' : joinHtml(items, '\n');
}

/** An `llm_query`'s recorded prompt and reply in full, when the preview cut them. */
function fullExchange(exchange: RecordedExchange | undefined): HtmlFragment | string {
  if (exchange === undefined) return '';
  const prompt = exchange.messages.map((message) => message.content).join('\n\n');
  const reply = exchange.response?.text ?? exchange.error?.message ?? '';
  return html`<details class="exchange"><summary>Full prompt and reply <span class="meta">${formatCount(prompt.length)} + ${formatCount(reply.length)} chars</span></summary>
<pre class="prompt full">${markMissingSlices(prompt)}</pre>
<pre class="reply full">${reply}</pre>
</details>`;
}

/** The prompt with each note for a context slice the reader did not have marked. */
function markMissingSlices(text: string): HtmlFragment {
  const parts: HtmlFragment[] = [];
  let at = 0;
  for (const match of text.matchAll(MISSING_SLICE)) {
    parts.push(html`${text.slice(at, match.index)}<mark class="slice-missing">${match[0]}</mark>`);
    at = match.index + match[0].length;
  }
  parts.push(html`${text.slice(at)}`);
  return joinHtml(parts, '');
}

/** A summary entry; its first class names the field (`data-field`), for the viewer and tests. */
function item(label: string, value: string, classes: string): HtmlFragment {
  const field = classes.split(' ')[0] ?? classes;
  return html`<dt>${label}</dt><dd class="${classes}" data-field="${field}">${value}</dd>`;
}
