import { parseSchema, RlmError } from '@rlm/protocol';
import {
  EXECUTOR_ITEM_KINDS,
  EXECUTOR_SECTIONS,
  type ExecutorItemKind,
  type ExecutorSectionId,
} from './executor-item-kinds.js';
import {
  type ExecutorSectionsInput,
  executorSectionsInputSchema,
} from './executor-sections-input.js';

/** An item as placed in a section, with its provenance. */
export interface ExecutorItem {
  kind: ExecutorItemKind;
  text: string;
  source: string;
  priority: number;
}

/** An item left out to fit the budget. */
export interface DroppedItem extends ExecutorItem {
  /** Characters the item took, including its line break. */
  chars: number;
}

/** One rendered section. */
export interface ExecutorSection {
  id: ExecutorSectionId | 'dropped';
  title: string;
  text: string;
  items: ExecutorItem[];
}

/** The rendered executor context. */
export interface ExecutorSections {
  text: string;
  sections: ExecutorSection[];
  /** What was left out, in the order it was dropped. */
  dropped: DroppedItem[];
  chars: number;
  maxChars: number;
}

type Parsed = ReturnType<typeof executorSectionsInputSchema.parse>;

interface Entry extends ExecutorItem {
  line: string;
  /** Position in its list, used for the drop order. */
  index: number;
}

const SECTION_JOIN = '\n\n';

function provenanced(text: string, source: string, bullet: string): string {
  const [first = '', ...rest] = text.replace(/\r\n?/g, '\n').split('\n');
  return [`${bullet}[source: ${source}] ${first}`, ...rest.map((line) => `  ${line}`)].join('\n');
}

function anchored(value: Parsed['role']): { text: string; source: string } {
  return typeof value === 'string' ? { text: value, source: 'caller' } : value;
}

function budgetText(budget: NonNullable<Parsed['budget']>): string | undefined {
  const parts: string[] = [];
  if (budget.tokensRemaining !== undefined) parts.push(`tokens left ${budget.tokensRemaining}`);
  if (budget.callsRemaining !== undefined) parts.push(`model calls left ${budget.callsRemaining}`);
  if (budget.timeRemainingMs !== undefined) {
    parts.push(`time left ${Math.floor(budget.timeRemainingMs / 1000)} s`);
  }
  if (budget.costRemainingUsd !== undefined) {
    parts.push(`cost left $${budget.costRemainingUsd.toFixed(2)}`);
  }
  return parts.length === 0 ? undefined : parts.join('; ');
}

function entries(input: Parsed): Entry[] {
  const listed: [
    ExecutorItemKind,
    { text: string; source: string; priority?: number | undefined }[],
  ][] = [
    ['constraint', input.constraints],
    ['goal', input.goals],
    ['pending-action', input.pendingActions],
    ['conversation', input.conversation],
    ['observation', input.observations],
    ['episodic', input.episodic],
    ['semantic', input.semantic],
    [
      'action',
      input.actions.map((action) => ({ ...action, text: `${action.name}: ${action.description}` })),
    ],
  ];
  const budget = input.budget === undefined ? undefined : budgetText(input.budget);
  if (input.budget !== undefined && budget !== undefined) {
    listed.push(['budget', [{ text: budget, source: input.budget.source }]]);
  }
  return listed.flatMap(([kind, items]) =>
    items.map((item, index) => ({
      kind,
      text: item.text,
      source: item.source,
      priority: item.priority ?? EXECUTOR_ITEM_KINDS[kind].priority,
      line: provenanced(item.text, item.source, '- '),
      index,
    })),
  );
}

/** Lowest priority first; ties go to the kind with the lower default, then by list end. */
function dropOrder(all: readonly Entry[]): Entry[] {
  const position = (entry: Entry) =>
    EXECUTOR_ITEM_KINDS[entry.kind].dropFrom === 'start' ? entry.index : -entry.index;
  return [...all].sort(
    (a, b) =>
      a.priority - b.priority ||
      EXECUTOR_ITEM_KINDS[a.kind].priority - EXECUTOR_ITEM_KINDS[b.kind].priority ||
      a.kind.localeCompare(b.kind) ||
      position(a) - position(b),
  );
}

function renderSection(
  definition: (typeof EXECUTOR_SECTIONS)[number],
  kept: readonly Entry[],
  lead: string | undefined,
): ExecutorSection | undefined {
  const blocks: string[] = lead === undefined ? [] : [lead];
  const items: ExecutorItem[] = [];
  for (const kind of definition.kinds) {
    const group = kept.filter((entry) => entry.kind === kind);
    if (group.length === 0) continue;
    const { label } = EXECUTOR_ITEM_KINDS[kind];
    blocks.push(
      [...(label === '' ? [] : [`${label}:`]), ...group.map((entry) => entry.line)].join('\n'),
    );
    items.push(
      ...group.map(({ kind: k, text, source, priority }) => ({ kind: k, text, source, priority })),
    );
  }
  if (blocks.length === 0) return undefined;
  return {
    id: definition.id,
    title: definition.title,
    text: `## ${definition.title}\n${blocks.join('\n')}`,
    items,
  };
}

type NoteStyle = 'full' | 'short';

function droppedSection(
  dropped: readonly DroppedItem[],
  maxChars: number,
  style: NoteStyle,
): ExecutorSection | undefined {
  if (dropped.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const item of dropped) counts.set(item.kind, (counts.get(item.kind) ?? 0) + 1);
  const summary = [...counts].map(([kind, count]) => `${count} ${kind}`).join(', ');
  const sources = dropped.slice(0, 10).map((item) => item.source);
  const more = dropped.length > 10 ? `, and ${dropped.length - 10} more` : '';
  const detail = style === 'full' ? `; sources: ${sources.join(', ')}${more}` : '';
  const text = `## Left out\nTo stay within ${maxChars} characters, ${dropped.length} lower-priority items were left out (${summary}${detail}).`;
  return { id: 'dropped', title: 'Left out', text, items: [] };
}

interface RenderState {
  kept: readonly Entry[];
  dropped: readonly DroppedItem[];
  style?: NoteStyle;
}

function render(input: Parsed, { kept, dropped, style = 'full' }: RenderState): ExecutorSection[] {
  const role = anchored(input.role);
  const task = anchored(input.task);
  const leads: Partial<Record<ExecutorSectionId, string>> = {
    role: provenanced(role.text, role.source, ''),
    task: provenanced(task.text, task.source, ''),
  };
  const sections = EXECUTOR_SECTIONS.map((definition) =>
    renderSection(definition, kept, leads[definition.id]),
  ).filter((section) => section !== undefined);
  const note = droppedSection(dropped, input.maxChars, style);
  return note === undefined ? sections : [...sections, note];
}

function join(sections: readonly ExecutorSection[]): string {
  return sections.map((section) => section.text).join(SECTION_JOIN);
}

/**
 * Renders the context blocks of an agent turn: role and constraints, goals and pending actions,
 * working memory (conversation, observations, episodic and semantic memories), budget, available
 * actions and the current task. Every item carries its provenance. When the text exceeds
 * `maxChars`, items are dropped lowest priority first (ties: the kind with the lower default
 * priority, then the oldest conversation message or the least relevant memory), deterministically,
 * and a closing note says what was left out. Role and task are never dropped.
 *
 * @throws RlmError `config.invalid` for bad input
 * @throws RlmError `prompts.prompt_too_long` when even role, task and the note exceed `maxChars`
 * @example
 * buildExecutorSections({ role: 'You triage support tickets.', task: 'Answer ticket #12.', maxChars: 4000 });
 */
export function buildExecutorSections(input: ExecutorSectionsInput): ExecutorSections {
  const parsed = parseSchema(executorSectionsInputSchema, input, {
    what: 'executor sections input',
    code: 'config.invalid',
  });
  const all = entries(parsed);
  const queue = dropOrder(all);
  const droppedSet = new Set<Entry>();
  const dropped: DroppedItem[] = [];
  const kept = () => all.filter((entry) => !droppedSet.has(entry));
  let sections = render(parsed, { kept: all, dropped });
  let text = join(sections);
  while (text.length > parsed.maxChars) {
    // The note without its source list sometimes fits where the full one does not; prefer that
    // to dropping one more item.
    const short = render(parsed, { kept: kept(), dropped, style: 'short' });
    if (dropped.length > 0 && join(short).length <= parsed.maxChars) {
      sections = short;
      text = join(short);
      break;
    }
    const next = queue.shift();
    if (next === undefined) {
      const length = join(short).length;
      throw new RlmError({
        code: 'prompts.prompt_too_long',
        message: `Role, task and the note on left-out items need ${length} characters; maxChars is ${parsed.maxChars}`,
        details: { length, max: parsed.maxChars },
      });
    }
    droppedSet.add(next);
    const { kind, text: itemText, source, priority } = next;
    dropped.push({ kind, text: itemText, source, priority, chars: next.line.length + 1 });
    sections = render(parsed, { kept: kept(), dropped });
    text = join(sections);
  }
  return { text, sections, dropped, chars: text.length, maxChars: parsed.maxChars };
}
