/**
 * Browser code of `/ui/agents/:id`: the assembled prompt of the agent's last turn layer by layer
 * (as the model got it), its skills, its eleven prompt layers (immutable, mutable with version
 * history, dynamic), its senders with last activity, and a sender's exchanges on click.
 */
export const AGENT_PAGE_JS = `
'use strict';
const agentId = document.body.dataset.agentId;
const base = '/v1/agents/' + encodeURIComponent(agentId);
async function getJson(path) {
  const response = await api(path);
  if (!response.ok) throw new Error(path + ': HTTP ' + response.status);
  return response.json();
}
function layerView(layer) {
  const history = (layer.history || []).slice().reverse().map((version) =>
    el('details', { 'data-version': String(version.version) }, [
      el('summary', { text: 'v' + version.version + ' by ' + version.by + ' at ' + new Date(version.at).toISOString() + (version.restoredFrom ? ' (restored v' + version.restoredFrom + ')' : '') }),
      el('pre', { text: version.content }),
    ]));
  return el('section', { class: 'layer ' + layer.mutability, 'data-layer': String(layer.id), 'data-mutability': layer.mutability }, [
    el('h3', { text: layer.id + '. ' + layer.title }, [
      el('span', { class: 'badge', text: layer.mutability }),
      layer.version !== null ? el('span', { class: 'badge', text: 'v' + layer.version }) : null,
    ]),
    el('pre', { text: layer.text || (layer.mutability === 'dynamic' ? '(built for each turn)' : '') }),
    history.length > 0 ? el('div', { class: 'history' }, [el('h4', { text: 'Version history' }), ...history]) : null,
  ]);
}
async function showSender(senderId, target) {
  const { data } = await getJson(base + '/conversations/' + encodeURIComponent(senderId));
  target.replaceChildren(
    el('h3', { text: 'Exchanges with ' + senderId }),
    el('table', { 'data-testid': 'exchanges' }, [
      el('tr', {}, [el('th', { text: 'At' }), el('th', { text: 'Message' }), el('th', { text: 'Reply' }), el('th', { text: 'Turn' })]),
      ...data.map((exchange) => el('tr', {}, [
        el('td', { text: exchange.at }), el('td', { text: exchange.senderBody }), el('td', { text: exchange.agentReply }),
        el('td', {}, [el('a', { href: '/ui/runs/' + encodeURIComponent(exchange.turnId), text: exchange.turnId })]),
      ])),
    ]),
  );
}
async function lastTurn() {
  const response = await api(base + '/last-turn');
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(base + '/last-turn: HTTP ' + response.status);
  return response.json();
}
function lastTurnView(turn) {
  if (turn === null) return el('p', { 'data-testid': 'last-turn', text: 'No turn yet.' });
  return el('div', { 'data-testid': 'last-turn' }, [
    el('p', { text: 'Turn ' + turn.turn + ' (' + turn.promptStyle + ' prompt, version ' + turn.promptVersion + ') for ' + turn.senders.join(', ') + ' at ' + turn.at + ', run ' }, [
      el('a', { href: '/ui/runs/' + encodeURIComponent(turn.runId), text: turn.runId }),
    ]),
    ...turn.layers.map((layer) => el('details', Object.assign({ class: 'turn-layer', 'data-layer': String(layer.id), 'data-summarised': String(layer.summarised) }, layer.id === 10 ? { open: '' } : {}), [
      el('summary', { text: layer.id + '. ' + layer.title + ' (' + layer.mutability + (layer.summarised ? ', one-line summary' : '') + ', ' + layer.text.length + ' chars)' }),
      el('pre', { text: layer.text }),
    ])),
  ]);
}
async function load() {
  const [agent, layers, senders, skills, turn] = await Promise.all([
    getJson(base), getJson(base + '/prompt-layers?history=1'), getJson(base + '/conversations'),
    getJson(base + '/skills'), lastTurn(),
  ]);
  const exchanges = el('div', { id: 'exchanges' });
  document.getElementById('app').replaceChildren(
    el('dl', { class: 'summary' }, [
      el('dt', { text: 'Agent' }), el('dd', { text: agent.id }),
      el('dt', { text: 'Identity' }), el('dd', { text: agent.identityTag || '(default)' }),
      el('dt', { text: 'Profile' }), el('dd', { text: agent.profile }),
    ]),
    el('h2', { text: 'Senders' }),
    el('table', { 'data-testid': 'senders' }, [
      el('tr', {}, [el('th', { text: 'Sender' }), el('th', { text: 'Exchanges' }), el('th', { text: 'Last activity' })]),
      ...senders.data.map((sender) => el('tr', {}, [
        el('td', {}, [el('a', { 'data-sender': sender.senderId, text: sender.senderId, onclick: () => showSender(sender.senderId, exchanges) })]),
        el('td', { text: String(sender.count) }), el('td', { text: sender.lastActivityAt }),
      ])),
    ]),
    exchanges,
    el('h2', { text: 'Last turn’s prompt' }),
    lastTurnView(turn),
    el('h2', { text: 'Skills' }),
    el('table', { 'data-testid': 'skills' }, [
      el('tr', {}, [el('th', { text: 'Skill' }), el('th', { text: 'Description' }), el('th', { text: 'Version' })]),
      ...skills.data.map((skill) => el('tr', { 'data-skill': skill.name }, [
        el('td', { text: skill.name }), el('td', { text: skill.description }), el('td', { text: 'v' + skill.version + ' by ' + skill.updatedBy }),
      ])),
    ]),
    el('h2', { text: 'Prompt layers' }),
    el('div', { 'data-testid': 'layers' }, layers.data.map(layerView)),
  );
  setConnection('loaded ' + new Date().toLocaleTimeString());
}
withKey(() => load().catch((error) => setConnection(String(error))));
`;
