import type { RunEvent } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { renderRunHtml } from './render-run-html.js';
import { subcallMarks } from './subcall-marks.js';
import { TraceTree } from './trace-tree.js';
import { traceViewModel } from './trace-view-model.js';

const ROOT = 'root';
const base = { v: 1, runId: ROOT, parentRunId: null, rootRunId: ROOT, depth: 0, at: 1 } as const;
const child = (runId: string) => ({ ...base, runId, parentRunId: ROOT, depth: 1 }) as const;

function runStart(runId: string, model: string): RunEvent {
  const fields = runId === ROOT ? base : child(runId);
  return {
    ...fields,
    type: 'run-start',
    query: 'q',
    model,
    context: [],
    maxIterations: 5,
    maxDepth: 2,
    promptVersion: 'v',
  };
}

function runEnd(runId: string, answer: string | null): RunEvent {
  const fields = runId === ROOT ? base : child(runId);
  return {
    ...fields,
    type: 'run-end',
    status: answer === null ? 'budget_exceeded' : 'completed',
    answer,
    partialAnswer: null,
    usage: { models: {} },
    iterations: 1,
    durationMs: 5,
  };
}

/** A root whose turn makes one `llm_query` the cache answers and one child that escalates. */
function markedRun(): RunEvent[] {
  return [
    runStart(ROOT, 'cheap'),
    { ...base, type: 'iteration-start', iteration: 0 },
    {
      ...base,
      type: 'subcall-start',
      callId: 'c1',
      kind: 'llm',
      model: 'cheap',
      promptPreview: 'p',
    },
    {
      ...base,
      type: 'model-call-end',
      callId: 'c1',
      model: 'cheap',
      ok: true,
      durationMs: 0,
      costUsd: 0,
      cache: { key: 'k', paidByRunId: 'earlier-run', savedCostUsd: 0.25, savedTokens: 1200 },
    },
    {
      ...base,
      type: 'subcall-end',
      callId: 'c1',
      kind: 'llm',
      ok: true,
      durationMs: 0,
      responsePreview: 'r',
    },
    {
      ...base,
      type: 'subcall-start',
      callId: 'c2',
      kind: 'rlm',
      model: 'cheap',
      promptPreview: 'solve',
      childRunId: 'root.1',
    },
    runStart('root.1', 'cheap'),
    runEnd('root.1', null),
    {
      ...base,
      type: 'subcall-end',
      callId: 'c2',
      kind: 'rlm',
      ok: false,
      durationMs: 3,
      responsePreview: 'Error: child run root.1 ended',
      childRunId: 'root.1',
    },
    {
      ...base,
      type: 'escalation',
      callId: 'c2',
      childRunId: 'root.1',
      toChildRunId: 'root.2',
      fromModel: 'cheap',
      toModel: 'strong',
      reason: 'errors',
      consecutiveErrors: 3,
      attempt: 1,
    },
    {
      ...base,
      type: 'subcall-start',
      callId: 'c3',
      kind: 'rlm',
      model: 'strong',
      promptPreview: 'solve',
      childRunId: 'root.2',
    },
    runStart('root.2', 'strong'),
    runEnd('root.2', '42'),
    {
      ...base,
      type: 'subcall-end',
      callId: 'c3',
      kind: 'rlm',
      ok: true,
      durationMs: 3,
      responsePreview: '42',
      childRunId: 'root.2',
    },
    runEnd(ROOT, '42'),
  ];
}

function treeOf(events: readonly RunEvent[]): TraceTree {
  const tree = new TraceTree();
  for (const event of events) tree.apply(event);
  return tree;
}

describe('cache hits and escalations in the trace', () => {
  it('marks a cached sub-call with the run that paid for it and counts hits and savings', () => {
    const tree = treeOf(markedRun());
    const [cached] = tree.root?.iterations[0]?.subcalls ?? [];
    expect(cached?.cache).toEqual({
      paidByRunId: 'earlier-run',
      savedCostUsd: 0.25,
      savedTokens: 1200,
    });
    expect(subcallMarks(cached ?? ({} as never))).toEqual([
      'cache hit (paid by run earlier-run; saved 1,200 tokens, $0.2500)',
    ]);
    expect({
      hits: tree.cacheHits,
      cost: tree.savedCostUsd,
      tokens: tree.savedTokens,
    }).toEqual({ hits: 1, cost: 0.25, tokens: 1200 });
  });

  it('marks where a child escalated and why (how many turns failed), on the failed child and on the one that ran again', () => {
    const tree = treeOf(markedRun());
    const [, failed, again] = tree.root?.iterations[0]?.subcalls ?? [];
    expect(failed && subcallMarks(failed)).toEqual([
      'escalated to strong: its code failed 3 turns in a row',
    ]);
    expect(again && subcallMarks(again)).toEqual([
      'escalation from cheap (run root.1: its code failed 3 turns in a row)',
    ]);
    expect(tree.escalations).toBe(1);
  });

  it('puts the marks on the timeline nodes and in the page, with the counts in the summary', () => {
    const tree = treeOf(markedRun());
    const model = traceViewModel(tree);
    expect(model).toMatchObject({ cacheHits: 1, escalations: 1 });
    const marked = Object.fromEntries(
      model.nodes.filter((node) => node.marks !== undefined).map((node) => [node.key, node.marks]),
    );
    expect(Object.keys(marked)).toEqual(['root/c1', 'root.1', 'root.2']);
    const page = renderRunHtml(tree);
    expect(page).toContain(
      '<span class="mark cache-hit">cache hit (paid by run earlier-run; saved 1,200 tokens, $0.2500)</span>',
    );
    expect(page).toContain(
      '<span class="mark escalation">escalated to strong: its code failed 3 turns in a row</span>',
    );
    expect(page).toMatch(/Cache hits<\/dt>\s*<dd[^>]*>1 \(saved 1,200 tokens, \$0\.2500\)/);
    expect(page).toMatch(/Escalations<\/dt>\s*<dd[^>]*>1</);
  });

  it('leaves a run without hits or escalations as it was', () => {
    const plain = markedRun().filter(
      (event) => event.type !== 'escalation' && !(event.type === 'model-call-end' && event.cache),
    );
    const tree = treeOf(plain);
    const page = renderRunHtml(tree);
    expect(page).not.toContain('class="marks"');
    expect(page).not.toContain('Cache hits');
    expect(traceViewModel(tree).nodes.some((node) => node.marks !== undefined)).toBe(false);
  });
});
