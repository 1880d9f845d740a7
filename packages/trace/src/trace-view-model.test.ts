import { describe, expect, it } from 'vitest';
import { parseTrajectory, trajectoryEvents } from './read-trajectory.js';
import { syntheticRun } from './testing/synthetic-run.js';
import { TraceTree } from './trace-tree.js';
import { traceViewModel } from './trace-view-model.js';

function treeOfRun(subcalls: number, childEvery: number): TraceTree {
  const run = syntheticRun({ subcalls, turns: 2, childEvery, failEvery: 5 });
  const tree = new TraceTree();
  for (const event of trajectoryEvents(parseTrajectory(run.text))) tree.apply(event);
  return tree;
}

describe('traceViewModel', () => {
  it('has one node per sub-call plus the root, each nested under the run that made it', () => {
    const model = traceViewModel(treeOfRun(12, 4));
    expect(model.subcalls).toBe(12);
    expect(model.nodes).toHaveLength(13);
    expect(model.nodes.filter((node) => node.kind === 'rlm')).toHaveLength(2);
    expect(model.nodes[0]).toMatchObject({ kind: 'run', parent: -1, level: 0, outcome: 'ok' });
    for (const [index, node] of model.nodes.entries()) {
      if (index === 0) continue;
      const parent = model.nodes[node.parent];
      expect(parent?.kind === 'run' || parent?.kind === 'rlm').toBe(true);
      expect(node.level).toBe((parent?.level ?? -1) + 1);
      expect(node.start).toBeGreaterThanOrEqual(parent?.start ?? 0);
      expect(node.end ?? 0).toBeLessThanOrEqual(parent?.end ?? 0);
    }
  });

  it('gives an llm_query its own call’s cost and a child run its whole subtree’s', () => {
    const model = traceViewModel(treeOfRun(12, 4));
    const llm = model.nodes.filter((node) => node.kind === 'llm');
    // the i-th llm_query costs (i + 1) / 10,000 dollars; every fifth one failed and cost nothing
    expect(llm.map((node) => node.costUsd)).toEqual(
      llm.map((_, index) => ((index + 1) % 5 === 0 ? 0 : (index + 1) / 10_000)),
    );
    expect(llm.map((node) => node.outcome)).toEqual(
      llm.map((_, index) => ((index + 1) % 5 === 0 ? 'error' : 'ok')),
    );
    expect(llm[0]).toMatchObject({ inputTokens: 100, outputTokens: 20 });
    for (const [index, node] of model.nodes.entries()) {
      if (node.kind !== 'rlm') continue;
      const own = model.nodes.filter((child) => child.parent === index);
      const childCost = own.reduce((sum, child) => sum + child.costUsd, 0);
      // its own turn's model call (one cent) and its two llm_query calls
      expect(own).toHaveLength(2);
      expect(node.costUsd).toBeCloseTo(0.01 + childCost, 10);
    }
  });
});
