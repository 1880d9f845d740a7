/**
 * Browser code of `/ui/runs/:id`: reads the run, follows its SSE events with `fetch` (so the key
 * travels in a header; EventSource cannot send one), resumes after a drop from the last event id,
 * and renders the tree of invocations with each turn's code, output, sub-calls and usage.
 */
export const RUN_PAGE_JS = String.raw`
'use strict';
const runId = document.body.dataset.runId;
const state = { run: null, invocations: new Map(), order: [], pending: false };

function invocation(event) {
  let node = state.invocations.get(event.runId);
  if (!node) {
    node = { runId: event.runId, parentRunId: event.parentRunId, depth: event.depth, model: '', query: '',
      status: 'running', answer: null, usage: null, iterations: new Map(), current: null, subcalls: [] };
    state.invocations.set(event.runId, node);
    state.order.push(event.runId);
  }
  return node;
}
function iteration(node, index) {
  let turn = node.iterations.get(index);
  if (!turn) {
    turn = { index, blocks: new Map(), subcalls: [], calls: [], response: null };
    node.iterations.set(index, turn);
  }
  return turn;
}
function apply(event) {
  const node = invocation(event);
  const turn = node.current === null ? null : iteration(node, node.current);
  switch (event.type) {
    case 'run-start': node.model = event.model; node.query = event.query; break;
    case 'iteration-start': node.current = event.iteration; iteration(node, event.iteration); break;
    case 'model-call-end': if (turn) turn.calls.push(event); break;
    case 'block-start': iteration(node, event.iteration).blocks.set(event.index, { code: event.code, done: false }); break;
    case 'block-end': Object.assign(iteration(node, event.iteration).blocks.get(event.index) || {}, { done: true, stdout: event.stdout, stderr: event.stderr, error: event.error }); break;
    case 'subcall-start': (turn ? turn.subcalls : node.subcalls).push({ start: event, end: null }); break;
    case 'subcall-end': {
      const list = turn ? turn.subcalls : node.subcalls;
      const match = list.find((call) => call.start.callId === event.callId);
      if (match) match.end = event;
      break;
    }
    case 'iteration-end': iteration(node, event.iteration).response = event.response; break;
    case 'final-answer': node.answer = event.answer; break;
    case 'run-end': node.status = event.status; node.usage = event.usage; if (event.answer !== null) node.answer = event.answer; break;
    default: break;
  }
  if (event.depth === 0 && event.type === 'run-end' && state.run) {
    state.run.status = event.status;
    state.run.answer = event.answer;
    state.run.usage = event.usage;
  }
  schedule();
}
function schedule() {
  if (state.pending) return;
  state.pending = true;
  requestAnimationFrame(() => { state.pending = false; render(); });
}
function renderInvocation(node) {
  const children = state.order.map((id) => state.invocations.get(id)).filter((child) => child.parentRunId === node.runId);
  const turns = [...node.iterations.values()].sort((a, b) => a.index - b.index).map((turn) =>
    el('section', { class: 'iteration', 'data-iteration': String(turn.index) }, [
      el('h3', { text: 'Turn ' + (turn.index + 1) }),
      ...turn.calls.map((call) => el('div', { class: 'usage', text: 'model ' + call.model + (call.usage ? ': ' + call.usage.inputTokens + ' in / ' + call.usage.outputTokens + ' out tokens' : '') + ', ' + Math.round(call.durationMs) + ' ms' + (call.ok ? '' : ' (failed: ' + (call.error ? call.error.code : '') + ')') })),
      ...[...turn.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([index, block]) =>
        el('div', { class: 'block', 'data-block': String(index) }, [
          el('pre', { class: 'code', text: block.code }),
          block.done && block.stdout ? el('pre', { class: 'stdout', text: block.stdout }) : null,
          block.done && block.stderr ? el('pre', { class: 'stderr', text: block.stderr }) : null,
          block.done && block.error ? el('pre', { class: 'error', text: block.error.name + ': ' + block.error.message }) : null,
        ])),
      ...turn.subcalls.map((call) => el('div', { class: 'subcall' }, [
        el('strong', { text: call.start.kind + '_query → ' + call.start.model + ': ' }),
        el('span', { text: call.start.promptPreview }),
        call.end ? el('div', { class: 'usage', text: (call.end.ok ? '↳ ' : '↳ failed: ') + call.end.responsePreview + ' (' + Math.round(call.end.durationMs) + ' ms)' }) : el('div', { class: 'usage', text: '↳ running…' }),
      ])),
      turn.response !== null && turn.blocks.size === 0 ? el('pre', { class: 'response', text: turn.response }) : null,
    ]));
  return el('div', { class: 'invocation', 'data-run-id': node.runId, 'data-depth': String(node.depth) }, [
    el('h2', { text: (node.depth === 0 ? 'Root' : 'Child (depth ' + node.depth + ')') + ' · ' + node.model + ' · ' }, [el('span', { class: 'status ' + node.status, text: node.status })]),
    node.query && node.depth > 0 ? el('div', { class: 'usage', text: node.query.slice(0, 300) }) : null,
    ...turns,
    node.answer !== null ? el('pre', { class: 'answer', text: 'FINAL: ' + node.answer }) : null,
    node.usage ? el('div', { class: 'usage', text: formatUsage(node.usage) }) : null,
    ...children.map(renderInvocation),
  ]);
}
function render() {
  const app = document.getElementById('app');
  const run = state.run;
  const roots = state.order.map((id) => state.invocations.get(id)).filter((node) => node.depth === 0);
  app.replaceChildren(
    el('dl', { class: 'summary' }, [
      el('dt', { text: 'Run' }), el('dd', { text: runId }),
      el('dt', { text: 'Status' }), el('dd', {}, [el('span', { class: 'status ' + run.status, 'data-testid': 'run-status', text: run.status })]),
      el('dt', { text: 'Query' }), el('dd', { text: run.query }),
      el('dt', { text: 'Model' }), el('dd', { text: run.model + ' (profile ' + run.profile + ')' }),
      el('dt', { text: 'Answer' }), el('dd', { 'data-testid': 'run-answer', text: run.answer === null || run.answer === undefined ? '—' : run.answer }),
      el('dt', { text: 'Usage' }), el('dd', { text: formatUsage(run.usage) || '—' }),
    ]),
    el('div', { class: 'tree', 'data-testid': 'run-tree' }, roots.map(renderInvocation)),
  );
}
async function follow() {
  let last = 0;
  for (;;) {
    let ended = false;
    try {
      setConnection('live');
      const response = await api('/v1/runs/' + encodeURIComponent(runId) + '/events', { headers: { 'last-event-id': String(last) } });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      let fields = { data: [] };
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (fields.event === 'end') ended = true;
            else if (fields.data.length > 0) { last = Number(fields.id); apply(JSON.parse(fields.data.join('\n'))); }
            fields = { data: [] };
          } else if (line[0] !== ':') {
            const colon = line.indexOf(':');
            const name = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (name === 'data') fields.data.push(value); else if (name === 'event') fields.event = value; else if (name === 'id') fields.id = value;
          }
        }
      }
    } catch (error) {
      if (String(error).includes('unauthorized')) return;
    }
    if (ended) { setConnection('finished'); return; }
    setConnection('reconnecting…');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
withKey(async () => {
  const response = await api('/v1/runs/' + encodeURIComponent(runId));
  if (!response.ok) { setConnection('run not found (' + response.status + ')'); return; }
  state.run = await response.json();
  render();
  await follow();
  const final = await api('/v1/runs/' + encodeURIComponent(runId));
  if (final.ok) { state.run = await final.json(); render(); }
});
`;
