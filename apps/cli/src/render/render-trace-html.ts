import type { TrajectoryFile } from '../trajectory/read-trajectory-file.js';
import { formatCost, formatCount, formatDuration } from './format-units.js';
import type { BlockNode, IterationNode, RunNode, RunTree, SubcallNode } from './run-tree.js';

/**
 * One self-contained HTML page for a trajectory: the run tree with each turn's model response,
 * code, output and sub-calls, child runs nested in place. Inline CSS, no scripts, no external
 * assets, so the file opens anywhere (and can be attached to a bug report).
 */
export function renderTraceHtml(trajectory: TrajectoryFile, tree: RunTree): string {
  const root = tree.root;
  const title = `rlm trace ${root?.runId ?? trajectory.header?.runId ?? ''}`.trim();
  const summary =
    root === undefined
      ? '<p>No run events in this trajectory.</p>'
      : `<dl class="summary">
  ${item('Query', root.query)}
  ${item('Model', root.model)}
  ${item('Status', root.status ?? 'unfinished')}
  ${item('Turns', String(root.iterations.length))}
  ${item('Tokens', `${formatCount(tree.inputTokens)} in / ${formatCount(tree.outputTokens)} out`)}
  ${item('Cost', formatCost(tree.costUsd))}
  ${item('Duration', root.durationMs === undefined ? '—' : formatDuration(root.durationMs))}
  ${item('Recorded', trajectory.header?.createdAt ?? '—')}
</dl>
${renderRun(tree, root)}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${summary}
</body>
</html>
`;
}

function renderRun(tree: RunTree, run: RunNode): string {
  const turns = run.iterations.map((turn) => renderTurn(tree, turn)).join('\n');
  const notes = run.notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('\n');
  const answer =
    run.answer === undefined
      ? `<p class="status">Ended: ${escapeHtml(run.status ?? 'unfinished')}</p>`
      : `<div class="answer"><h4>Answer (${escapeHtml(run.answer.source)})</h4><pre>${escapeHtml(run.answer.text)}</pre></div>`;
  const linked = new Set(
    run.iterations.flatMap((turn) => turn.subcalls.map((call) => call.childRunId)),
  );
  const orphans = [...tree.runs.values()]
    .filter((child) => child.parentRunId === run.runId && !linked.has(child.runId))
    .map((child) => renderRun(tree, child))
    .join('\n');
  return `<section class="run depth-${run.depth}">
<h2>Run ${escapeHtml(run.runId)} <span class="meta">depth ${run.depth} · ${escapeHtml(run.model)}</span></h2>
${turns}
${notes}
${answer}
${orphans}
</section>`;
}

function renderTurn(tree: RunTree, turn: IterationNode): string {
  const failed = turn.blocks.some((block) => block.state === 'error');
  const meta = [
    `${turn.blocks.length} block${turn.blocks.length === 1 ? '' : 's'}`,
    turn.subcalls.length > 0 ? `${turn.subcalls.length} sub-calls` : '',
    turn.durationMs === undefined ? '' : formatDuration(turn.durationMs),
  ].filter((part) => part !== '');
  const response =
    turn.response === undefined
      ? ''
      : `<details class="response"><summary>Model response</summary><pre>${escapeHtml(turn.response)}</pre></details>`;
  return `<details class="turn${failed ? ' failed' : ''}" open>
<summary>Turn ${turn.iteration + 1} <span class="meta">${escapeHtml(meta.join(' · '))}</span></summary>
${response}
${turn.blocks.map(renderBlock).join('\n')}
${turn.subcalls.map((call) => renderSubcall(tree, call)).join('\n')}
</details>`;
}

function renderBlock(block: BlockNode): string {
  const output =
    block.stdout === ''
      ? '<pre class="empty">(no output)</pre>'
      : `<pre class="stdout">${escapeHtml(block.stdout)}</pre>`;
  const stderr = block.stderr === '' ? '' : `<pre class="stderr">${escapeHtml(block.stderr)}</pre>`;
  const error =
    block.error === undefined ? '' : `<pre class="error">${escapeHtml(block.error)}</pre>`;
  const took = block.executionTime === undefined ? '' : ` · ${formatDuration(block.executionTime)}`;
  return `<div class="block ${block.state}">
<h4>Block ${block.index + 1}<span class="meta">${took}</span></h4>
<pre class="code">${escapeHtml(block.code)}</pre>
${output}${stderr}${error}
</div>`;
}

function renderSubcall(tree: RunTree, call: SubcallNode): string {
  const fn = call.kind === 'rlm' ? 'rlm_query' : 'llm_query';
  const child = call.childRunId === undefined ? undefined : tree.runs.get(call.childRunId);
  const took = call.durationMs === undefined ? '' : ` · ${formatDuration(call.durationMs)}`;
  return `<div class="subcall ${call.state}">
<h4>${fn} <span class="meta">${escapeHtml(call.model)}${took}</span></h4>
<pre class="prompt">${escapeHtml(call.promptPreview)}</pre>
<pre class="reply">${escapeHtml(call.responsePreview ?? '(no reply)')}</pre>
${child === undefined ? '' : renderRun(tree, child)}
</div>`;
}

function item(label: string, value: string): string {
  return `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1d1d1f;background:#fafafa}
h1{font-size:1.3rem}h2{font-size:1.05rem;margin:.5rem 0}h4{margin:.3rem 0;font-size:.9rem}
.meta{color:#6e6e73;font-weight:normal;font-size:.85em;margin-left:.5em}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;background:#fff;border:1px solid #ddd;border-radius:6px;padding:.8rem}
dt{font-weight:600}dd{margin:0;white-space:pre-wrap}
section.run{border-left:3px solid #0a84ff;padding-left:.8rem;margin:.8rem 0}
section.run.depth-1{border-color:#bf5af2}section.run.depth-2{border-color:#ff9f0a}
details.turn{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
details.turn.failed{border-color:#ff453a}summary{cursor:pointer;font-weight:600}
pre{white-space:pre-wrap;word-break:break-word;margin:.2rem 0;padding:.4rem .6rem;border-radius:4px;font:12.5px/1.4 ui-monospace,monospace;max-height:30rem;overflow:auto}
pre.code{background:#1e1e1e;color:#e5e5e5}pre.stdout,pre.reply{background:#f0f4f0}pre.empty{color:#999}
pre.stderr,pre.error{background:#fff0f0;color:#a00}pre.prompt{background:#f3f0fa}
.block,.subcall{margin:.5rem 0}.subcall{border-left:2px dashed #bf5af2;padding-left:.6rem}
.answer pre{background:#eaf7ea;border:1px solid #34c759}.note{color:#a05a00}.status{color:#a00}
`;
