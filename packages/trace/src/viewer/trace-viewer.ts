/**
 * Browser code of the trace viewer: it brings `renderRunHtml`'s markup to life. It draws the
 * timeline (one bar per run and sub-call on a shared time axis, nested by parent, coloured by
 * outcome, with tokens and cost), builds a folded turn's body from its `<template>` only when the
 * turn is opened, and searches code, output, errors, prompts and replies. The same script is
 * inlined in the page `rlm trace --html` writes and served with the server's run page.
 *
 * Only the rows of the timeline in view exist in the DOM, so 3,000 sub-calls scroll like 30.
 * Built into `TRACE_VIEWER_JS` by scripts/embed-script.mjs (see the package's embed.json).
 */
import { formatCost, formatCount, formatDuration } from '../format-units.js';
import { markBadges } from './mark-badges.js';

interface ViewNode {
  key: string;
  kind: 'run' | 'llm' | 'rlm';
  parent: number;
  level: number;
  label: string;
  model: string;
  start: number;
  end: number | null;
  outcome: string;
  status: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  runId: string;
  turnKey: string | null;
  marks?: string[];
}

interface ViewModel {
  wallMs: number;
  nodes: ViewNode[];
}

/** What survives a live page swapping in a newer view: kept per container element. */
interface ViewerState {
  query: string;
  scrollTop: number;
  selected: number;
}

const ROW_HEIGHT = 22;
/** Rows drawn beyond each edge of the visible window, so a fast scroll shows no blank rows. */
const OVERSCAN_ROWS = 12;
/** Matching turns a search opens and highlights; the others are listed folded. */
const SEARCH_OPEN_MAX = 20;
const SEARCH_DELAY_MS = 120;

const states = new WeakMap<Element, ViewerState>();

function element(tag: string, className: string, text?: string): HTMLElement {
  const node = document.createElement(tag);
  if (className !== '') node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Builds a folded turn's body from its template, once. */
function fillTurn(details: HTMLDetailsElement): void {
  const template = details.querySelector(':scope > template');
  if (!(template instanceof HTMLTemplateElement)) return;
  details.append(template.content.cloneNode(true));
  template.remove();
}

/** The text a turn's search looks at, whether or not its body was built. */
function turnText(details: HTMLDetailsElement, cache: WeakMap<Element, string>): string {
  let text = cache.get(details);
  if (text === undefined) {
    const template = details.querySelector(':scope > template');
    text = (
      template instanceof HTMLTemplateElement
        ? `${details.querySelector(':scope > summary')?.textContent ?? ''} ${template.content.textContent ?? ''}`
        : (details.textContent ?? '')
    ).toLowerCase();
    cache.set(details, text);
  }
  return text;
}

class Timeline {
  private readonly model: ViewModel;
  private readonly body: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly section: HTMLElement;
  private readonly span: number;
  private readonly onSelect: (index: number) => void;
  private shown: number[];
  private dimmed: Set<number> = new Set();
  private selected = -1;
  private frame = 0;
  private readonly drawn = new Map<number, HTMLElement>();

  constructor(section: HTMLElement, model: ViewModel, onSelect: (index: number) => void) {
    this.model = model;
    this.section = section;
    this.onSelect = onSelect;
    let span = model.wallMs;
    for (const node of model.nodes) span = Math.max(span, node.end ?? node.start);
    this.span = span > 0 ? span : 1;
    this.shown = model.nodes.map((_, index) => index);
    const head = element('div', 'tl-head');
    head.append(
      element('span', 'tl-label', `${model.nodes.length} runs and sub-calls`),
      element('span', 'tl-tokens', 'tokens'),
      element('span', 'tl-cost', 'cost'),
    );
    const axis = element('span', 'tl-track tl-axis');
    for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
      const tick = element('span', 'tl-tick', formatDuration(this.span * fraction));
      tick.style.left = `${fraction * 100}%`;
      axis.append(tick);
    }
    head.append(axis);
    this.body = element('div', 'tl-body');
    this.body.tabIndex = 0;
    this.spacer = element('div', 'tl-spacer');
    this.rows = element('div', 'tl-rows');
    this.body.append(this.spacer, this.rows);
    section.replaceChildren(head, this.body);
    this.body.addEventListener('scroll', () => this.schedule());
    this.rows.addEventListener('click', (event) => {
      const row = (event.target as Element).closest<HTMLElement>('.tl-row');
      if (row === null) return;
      const index = Number(row.dataset['node']);
      this.select(index);
      this.onSelect(index);
    });
    this.layout();
  }

  get scrollTop(): number {
    return this.body.scrollTop;
  }

  set scrollTop(value: number) {
    this.body.scrollTop = value;
    this.draw();
  }

  /** Shows only `matches` and their ancestors (dimmed); `null` shows every node. */
  filter(matches: Set<number> | null): void {
    this.dimmed = new Set();
    if (matches === null) {
      this.shown = this.model.nodes.map((_, index) => index);
    } else {
      const keep = new Set<number>();
      for (const index of matches) {
        let at = index;
        while (at >= 0 && !keep.has(at)) {
          keep.add(at);
          if (!matches.has(at)) this.dimmed.add(at);
          at = this.model.nodes[at]?.parent ?? -1;
        }
      }
      this.shown = [...keep].sort((a, b) => a - b);
    }
    this.body.scrollTop = 0;
    this.layout();
  }

  select(index: number): void {
    this.selected = index;
    this.redraw();
  }

  private layout(): void {
    this.spacer.style.height = `${this.shown.length * ROW_HEIGHT}px`;
    this.section.dataset['rows'] = String(this.shown.length);
    this.redraw();
  }

  private schedule(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Rows are kept while they stay in view: a scroll only adds the rows it brings in. */
  private draw(): void {
    const top = this.body.scrollTop;
    const height = this.body.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN_ROWS);
    const last = Math.min(
      this.shown.length,
      Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN_ROWS,
    );
    for (const [position, row] of this.drawn) {
      if (position < first || position >= last) {
        row.remove();
        this.drawn.delete(position);
      }
    }
    const added: HTMLElement[] = [];
    for (let position = first; position < last; position++) {
      if (this.drawn.has(position)) continue;
      const index = this.shown[position] ?? -1;
      const node = this.model.nodes[index];
      if (node === undefined) continue;
      const row = this.row(node, index, position);
      this.drawn.set(position, row);
      added.push(row);
    }
    this.rows.append(...added);
  }

  /** Draws every row in view again (what is shown, dimmed or selected changed). */
  private redraw(): void {
    this.drawn.clear();
    this.rows.replaceChildren();
    this.draw();
  }

  private row(node: ViewNode, index: number, position: number): HTMLElement {
    const row = element(
      'div',
      `tl-row kind-${node.kind} outcome-${node.outcome}${this.dimmed.has(index) ? ' dimmed' : ''}${index === this.selected ? ' selected' : ''}`,
    );
    row.dataset['node'] = String(index);
    row.dataset['key'] = node.key;
    row.dataset['kind'] = node.kind;
    row.style.top = `${position * ROW_HEIGHT}px`;
    const end = node.end ?? this.span;
    const took = node.end === null ? 'running' : formatDuration(end - node.start);
    const marks = node.marks ?? [];
    row.title = [`${node.label}`, `${node.model} · ${node.status} · ${took}`, ...marks].join('\n');
    const label = element('span', 'tl-label', node.label);
    label.style.paddingLeft = `${0.3 + node.level * 0.9}rem`;
    label.prepend(...markBadges(marks));
    const tokens = element('span', 'tl-tokens', formatCount(node.inputTokens + node.outputTokens));
    const cost = element('span', 'tl-cost', formatCost(node.costUsd));
    const track = element('span', 'tl-track');
    const bar = element('span', 'tl-bar');
    bar.style.left = `${(node.start / this.span) * 100}%`;
    bar.style.width = `${Math.max(((end - node.start) / this.span) * 100, 0.2)}%`;
    track.append(bar);
    row.append(label, tokens, cost, track);
    return row;
  }
}

/** Wraps each occurrence of `query` (lower case) in the text under `root` in a `<mark>`. */
function highlight(root: Element, query: string): number {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    if ((node.textContent ?? '').toLowerCase().includes(query)) texts.push(node as Text);
  }
  let count = 0;
  for (const text of texts) {
    let rest = text;
    for (;;) {
      const at = (rest.textContent ?? '').toLowerCase().indexOf(query);
      if (at < 0) break;
      const hit = rest.splitText(at);
      rest = hit.splitText(query.length);
      const mark = element('mark', 'search-hit');
      hit.replaceWith(mark);
      mark.append(hit);
      count += 1;
    }
  }
  return count;
}

function clearHighlights(root: Element): void {
  for (const mark of root.querySelectorAll('mark.search-hit')) {
    const parent = mark.parentNode;
    mark.replaceWith(...mark.childNodes);
    parent?.normalize();
  }
}

/** One mounted trace view: its turns, its timeline and its search. */
class Viewer {
  private readonly root: HTMLElement;
  private readonly model: ViewModel;
  private readonly state: ViewerState;
  private readonly timeline: Timeline;
  private readonly texts = new WeakMap<Element, string>();
  private nodeTexts: string[] | undefined;

  constructor(root: HTMLElement, model: ViewModel, state: ViewerState) {
    this.root = root;
    this.model = model;
    this.state = state;
    // `toggle` does not bubble: listen in the capture phase.
    root.addEventListener(
      'toggle',
      (event) => {
        const target = event.target;
        if (target instanceof HTMLDetailsElement && target.open) fillTurn(target);
      },
      true,
    );
    for (const details of this.turns()) if (details.open) fillTurn(details);
    const section = root.querySelector<HTMLElement>(':scope > section.timeline') ?? root;
    this.timeline = new Timeline(section, model, (index) => this.reveal(index));
    section.addEventListener(
      'scroll',
      () => {
        state.scrollTop = this.timeline.scrollTop;
      },
      true,
    );
    this.wireSearch();
    if (state.selected >= 0) this.timeline.select(state.selected);
    this.timeline.scrollTop = state.scrollTop;
  }

  private turns(): HTMLDetailsElement[] {
    return [...this.root.querySelectorAll<HTMLDetailsElement>('details.turn')];
  }

  /** Opens the turn that made node `index` (or its run's section) and scrolls to it. */
  private reveal(index: number): void {
    this.state.selected = index;
    const node = this.model.nodes[index];
    if (node === undefined) return;
    const target =
      this.callInTurn(node, index) ??
      this.root.querySelector(`section.run[data-run-id="${CSS.escape(node.runId)}"]`);
    if (target === null) return;
    for (const old of this.root.querySelectorAll('.flash')) old.classList.remove('flash');
    target.classList.add('flash');
    target.scrollIntoView({ block: 'center' });
  }

  private callInTurn(node: ViewNode, index: number): Element | null {
    if (node.turnKey === null) return null;
    const turn = this.root.querySelector<HTMLDetailsElement>(
      `details.turn[data-key="${CSS.escape(node.turnKey)}"]`,
    );
    if (turn === null) return null;
    turn.hidden = false;
    turn.closest('section.run')?.removeAttribute('hidden');
    fillTurn(turn);
    turn.open = true;
    return turn.querySelector(`.subcall[data-node="${index}"]`) ?? turn;
  }

  /** Each node's searchable text: its label and model, and its sub-call's prompt and reply. */
  private textsOfNodes(): string[] {
    if (this.nodeTexts !== undefined) return this.nodeTexts;
    const found = this.model.nodes.map((node) =>
      [node.label, node.model, node.key, ...(node.marks ?? [])].join(' '),
    );
    for (const details of this.turns()) {
      const template = details.querySelector(':scope > template');
      const scope = template instanceof HTMLTemplateElement ? template.content : details;
      for (const call of scope.querySelectorAll<HTMLElement>('.subcall[data-node]')) {
        const index = Number(call.dataset['node']);
        if (found[index] !== undefined) found[index] += ` ${call.textContent ?? ''}`;
      }
    }
    this.nodeTexts = found.map((text) => text.toLowerCase());
    return this.nodeTexts;
  }

  private wireSearch(): void {
    const input = this.root.querySelector<HTMLInputElement>('.toolbar input.search');
    if (input === null) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.search(input.value), SEARCH_DELAY_MS);
    });
    if (this.state.query !== '') {
      input.value = this.state.query;
      this.search(this.state.query);
    }
  }

  private search(raw: string): void {
    this.state.query = raw;
    const query = raw.trim().toLowerCase();
    clearHighlights(this.root);
    if (query === '') {
      this.showAll();
      return;
    }
    const turns = this.filterTurns(query);
    for (const run of this.root.querySelectorAll<HTMLElement>('section.run')) {
      const heading = run.querySelector(':scope > h2')?.textContent?.toLowerCase() ?? '';
      run.hidden =
        !heading.includes(query) && run.querySelector('details.turn:not([hidden])') === null;
    }
    const nodes = new Set<number>();
    this.textsOfNodes().forEach((text, index) => {
      if (text.includes(query)) nodes.add(index);
    });
    this.timeline.filter(nodes);
    this.root.dataset['searchTurns'] = String(turns.matched);
    const count = this.root.querySelector<HTMLElement>('.toolbar .search-count');
    if (count === null) return;
    const more = turns.matched > turns.opened ? ` (first ${turns.opened} turns opened)` : '';
    count.textContent = `${turns.matched} turn${turns.matched === 1 ? '' : 's'} and ${nodes.size} timeline node${nodes.size === 1 ? '' : 's'} match${more}`;
    count.dataset['marks'] = String(turns.marks);
  }

  /** Hides the turns that do not match; opens and highlights the first SEARCH_OPEN_MAX that do. */
  private filterTurns(query: string): { matched: number; opened: number; marks: number } {
    const seen = { matched: 0, opened: 0, marks: 0 };
    for (const details of this.turns()) {
      const hit = turnText(details, this.texts).includes(query);
      details.hidden = !hit;
      if (!hit) continue;
      seen.matched += 1;
      if (seen.opened >= SEARCH_OPEN_MAX) continue;
      seen.opened += 1;
      fillTurn(details);
      details.open = true;
      seen.marks += highlight(details, query);
    }
    return seen;
  }

  private showAll(): void {
    for (const details of this.turns()) details.hidden = false;
    for (const run of this.root.querySelectorAll<HTMLElement>('section.run')) run.hidden = false;
    this.timeline.filter(null);
    const count = this.root.querySelector<HTMLElement>('.toolbar .search-count');
    if (count !== null) count.textContent = '';
    this.root.dataset['searchTurns'] = '';
  }
}

function mountOne(root: HTMLElement): void {
  if (root.dataset['viewer'] === 'mounted') return;
  const source = root.querySelector(':scope > script.rlm-trace-model');
  const section = root.querySelector<HTMLElement>(':scope > section.timeline');
  if (source === null || section === null) return;
  root.dataset['viewer'] = 'mounted';
  const model = JSON.parse(source.textContent ?? '{}') as ViewModel;
  // A live page swaps in a newer view under the same element: the reader's state stays there.
  const holder = root.parentElement ?? root;
  const state = states.get(holder) ?? { query: '', scrollTop: 0, selected: -1 };
  states.set(holder, state);
  new Viewer(root, model, state);
}

/** Mounts the viewer on every trace view under `host` (or `host` itself) not mounted yet. */
export function mountTraceViewer(host: Element): void {
  if (host instanceof HTMLElement && host.matches('.rlm-trace')) mountOne(host);
  for (const root of host.querySelectorAll<HTMLElement>('.rlm-trace')) mountOne(root);
}

(globalThis as unknown as { rlmTraceViewer: unknown }).rlmTraceViewer = {
  mount: mountTraceViewer,
};
if (document.body !== null) mountTraceViewer(document.body);
