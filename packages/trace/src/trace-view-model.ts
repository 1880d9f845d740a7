import type { RunStatus } from '@rlm/protocol';
import { subcallMarks } from './subcall-marks.js';
import type { TraceRun, TraceSubcall, TraceTree, TraceUsage } from './trace-tree.js';

/** How a node of the timeline ended, which picks its colour. */
export type TraceOutcome = 'ok' | 'error' | 'limit' | 'cancelled' | 'running';

/**
 * One bar of the viewer's timeline: a run or a sub-call. An `rlm_query` and the child run it
 * started are one node (the child's run id, kind `rlm`), so the timeline has one bar per
 * sub-call plus one for the root.
 */
export interface TraceViewNode {
  /** The run id of a run, `<run id>/<call id>` of an `llm_query`. */
  key: string;
  kind: 'run' | 'llm' | 'rlm';
  /** Index of the node it is nested under; -1 for the root (and runs whose parent is unknown). */
  parent: number;
  /** Nesting level in the timeline. */
  level: number;
  label: string;
  model: string;
  /** Milliseconds after the tree's first event. */
  start: number;
  /** Milliseconds after the tree's first event; `null` while it runs. */
  end: number | null;
  outcome: TraceOutcome;
  /** The run status or sub-call state in words. */
  status: string;
  /** Tokens and cost: an `llm_query`'s own call; a run's whole subtree. */
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** The run whose section shows it (its own for a run, the caller for an `llm_query`). */
  runId: string;
  /** `data-key` of the turn that made the call (`null` for the root and orphan runs). */
  turnKey: string | null;
  /** A cache hit, an escalation: what `subcallMarks` says of the sub-call (absent when nothing). */
  marks?: string[];
}

/** What the viewer needs beside the markup: the summary figures and the timeline's nodes. */
export interface TraceViewModel {
  rootRunId: string | null;
  outcome: TraceOutcome;
  status: string;
  /** Milliseconds from the first to the last event (the root's duration once it ended). */
  wallMs: number;
  subcalls: number;
  /** Sub-calls the cache answered, and failed children run again on a stronger model. */
  cacheHits: number;
  escalations: number;
  nodes: TraceViewNode[];
}

/** The outcome a run status stands for (`undefined`: not finished). */
export function runOutcome(status: RunStatus | undefined): TraceOutcome {
  switch (status) {
    case undefined:
      return 'running';
    case 'completed':
      return 'ok';
    case 'max_iterations':
    case 'budget_exceeded':
    case 'timeout':
      return 'limit';
    case 'cancelled':
    case 'interrupted':
      return 'cancelled';
    default:
      return 'error';
  }
}

/** `<run id>/turn-<n>`: the `data-key` of a turn's `<details>` (stable across renders). */
export function turnKey(runId: string, iteration: number): string {
  return `${runId}/turn-${iteration}`;
}

/**
 * The timeline of a tree, depth first: each run, then the sub-calls of its turns in order, an
 * `rlm_query` followed by its child's own sub-calls. A pure function of the tree.
 */
export function traceViewModel(tree: TraceTree): TraceViewModel {
  const origin = tree.startedAt ?? 0;
  const builder: Builder = {
    tree,
    origin,
    nodes: [],
    placed: new Set(),
    subtree: subtreeUsage(tree),
    children: childrenByParent(tree),
    subcalls: 0,
  };
  const root = tree.root;
  const top = { parent: -1, level: 0, kind: 'run', turnKey: null } as const;
  if (root !== undefined) addRun(builder, root, top);
  for (const run of tree.runs.values()) {
    if (!builder.placed.has(run.runId)) addRun(builder, run, top);
  }
  return {
    rootRunId: tree.rootRunId ?? null,
    outcome: runOutcome(root?.status),
    status: root?.status ?? 'running',
    wallMs: root?.durationMs ?? (tree.lastAt ?? origin) - origin,
    subcalls: builder.subcalls,
    cacheHits: tree.cacheHits,
    escalations: tree.escalations,
    nodes: builder.nodes,
  };
}

/** What `traceViewModel` carries while it walks the tree. */
interface Builder {
  tree: TraceTree;
  origin: number;
  nodes: TraceViewNode[];
  placed: Set<string>;
  subtree: Map<string, TraceUsage>;
  children: Map<string, TraceRun[]>;
  subcalls: number;
}

/** Where a node goes in the timeline. */
interface Place {
  parent: number;
  level: number;
  kind: 'run' | 'rlm';
  turnKey: string | null;
}

function addRun(builder: Builder, run: TraceRun, place: Place): void {
  const { tree, nodes, placed, origin } = builder;
  placed.add(run.runId);
  const index = nodes.length;
  nodes.push({
    key: run.runId,
    kind: place.kind,
    parent: place.parent,
    level: place.level,
    label: place.kind === 'run' ? `run ${run.runId}` : `rlm_query ${firstLine(run.query)}`,
    model: run.model,
    start: run.startedAt - origin,
    end: run.durationMs === undefined ? null : run.startedAt - origin + run.durationMs,
    outcome: runOutcome(run.status),
    status: run.status ?? 'running',
    ...tokens(builder.subtree.get(run.runId) ?? run.usage),
    runId: run.runId,
    turnKey: place.turnKey,
  });
  const level = place.level + 1;
  for (const turn of run.iterations) {
    const key = turnKey(run.runId, turn.iteration);
    for (const call of turn.subcalls) {
      builder.subcalls += 1;
      const child = call.childRunId === undefined ? undefined : tree.runs.get(call.childRunId);
      if (child !== undefined && !placed.has(child.runId)) {
        const at = nodes.length;
        addRun(builder, child, { parent: index, level, kind: 'rlm', turnKey: key });
        markNode(nodes[at], call);
      } else {
        nodes.push(
          callNode(call, { parent: index, level, runId: run.runId, turnKey: key }, origin),
        );
      }
    }
  }
  // Children whose starting sub-call was not seen (a trace cut short) still show, under it.
  for (const other of builder.children.get(run.runId) ?? []) {
    if (!placed.has(other.runId)) {
      addRun(builder, other, { parent: index, level, kind: 'rlm', turnKey: null });
    }
  }
}

/** Puts a sub-call's marks on the node that shows it. */
function markNode(node: TraceViewNode | undefined, call: TraceSubcall): void {
  const marks = subcallMarks(call);
  if (node !== undefined && marks.length > 0) node.marks = marks;
}

function childrenByParent(tree: TraceTree): Map<string, TraceRun[]> {
  const children = new Map<string, TraceRun[]>();
  for (const run of tree.runs.values()) {
    if (run.parentRunId === null) continue;
    const list = children.get(run.parentRunId) ?? [];
    list.push(run);
    children.set(run.parentRunId, list);
  }
  return children;
}

function callNode(
  call: TraceSubcall,
  place: { parent: number; level: number; runId: string; turnKey: string },
  origin: number,
): TraceViewNode {
  const start = call.startedAt - origin;
  const marks = subcallMarks(call);
  return {
    ...(marks.length === 0 ? {} : { marks }),
    key: `${place.runId}/${call.callId}`,
    kind: call.kind,
    parent: place.parent,
    level: place.level,
    label: `${call.kind === 'rlm' ? 'rlm_query' : 'llm_query'} ${firstLine(call.promptPreview)}`,
    model: call.model,
    start,
    end: call.durationMs === undefined ? null : start + call.durationMs,
    outcome: call.state === 'ok' ? 'ok' : call.state === 'error' ? 'error' : 'running',
    status: call.state,
    ...tokens(call.usage),
    runId: place.runId,
    turnKey: place.turnKey,
  };
}

/** Each run's usage with all of its descendants'. */
function subtreeUsage(tree: TraceTree): Map<string, TraceUsage> {
  const totals = new Map<string, TraceUsage>();
  for (const run of tree.runs.values()) totals.set(run.runId, { ...run.usage });
  // Deepest first, so a child's total is complete before it is added to its parent's.
  const byDepth = [...tree.runs.values()].sort((a, b) => b.depth - a.depth);
  for (const run of byDepth) {
    if (run.parentRunId === null) continue;
    const own = totals.get(run.runId);
    const parent = totals.get(run.parentRunId);
    if (own === undefined || parent === undefined) continue;
    parent.modelCalls += own.modelCalls;
    parent.inputTokens += own.inputTokens;
    parent.outputTokens += own.outputTokens;
    parent.costUsd += own.costUsd;
  }
  return totals;
}

function tokens(
  usage: TraceUsage,
): Pick<TraceViewNode, 'inputTokens' | 'outputTokens' | 'costUsd'> {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    costUsd: usage.costUsd,
  };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}
