import type { EvalSystem } from '../runner/eval-system.js';
import type { ResultRow } from '../runner/result-row.js';
import { costCell, dollars, NOMINAL_COST_NOTE, percent } from './render-markdown-report.js';
import { describeRunDifferences, type RunDifference, runDifferences } from './run-differences.js';
import { summarizeRows } from './summarize-rows.js';
import { type SystemChange, systemChanges } from './system-changes.js';

/** One system in both runs. */
export interface SystemDelta {
  system: string;
  accuracyA: number;
  accuracyB: number;
  /** `accuracyB - accuracyA`. */
  accuracyDelta: number;
  costPerTaskA: number;
  costPerTaskB: number;
  costPerTaskDelta: number;
  /** Either run's cost of this system is nominal (offline models). */
  costNominal: boolean;
}

/** A task whose outcome changed for a system: passed in one run (any attempt) and not in the other. */
export interface FlippedTask {
  taskId: string;
  system: string;
  /** `fixed`: failed in A, passed in B; `broken`: the reverse. */
  direction: 'fixed' | 'broken';
}

export interface RunComparison {
  /** Systems present in both runs. */
  systems: SystemDelta[];
  flipped: FlippedTask[];
  /** Systems only one run has. */
  onlyInA: string[];
  onlyInB: string[];
  /** How the runs' setups differ (benchmark, seed, tasks, sizes); empty for the same experiment. */
  differences: RunDifference[];
  /** Settings of systems both runs have that differ (drivers, model, mode, …), when their systems are known. */
  systemChanges: SystemChange[];
}

/** The systems each run had (from its `run.json`), for the setting changes of a comparison. */
export interface CompareRunsOptions {
  systemsA?: readonly EvalSystem[];
  systemsB?: readonly EvalSystem[];
}

/**
 * Compares two runs (A = before, B = after): per-system accuracy and cost deltas, the tasks
 * that flipped, and how the two setups differ (a warning when they are not the same experiment). A task counts as passed in a run when any of its attempts passed; tasks one run
 * lacks are not flips.
 */
export function compareRuns(
  a: readonly ResultRow[],
  b: readonly ResultRow[],
  { systemsA = [], systemsB = [] }: CompareRunsOptions = {},
): RunComparison {
  const summaryA = summarizeRows(a);
  const summaryB = summarizeRows(b);
  const namesB = new Set(summaryB.systems.map((system) => system.system));
  const namesA = new Set(summaryA.systems.map((system) => system.system));
  const systems: SystemDelta[] = [];
  for (const before of summaryA.systems) {
    const after = summaryB.systems.find((system) => system.system === before.system);
    if (after === undefined) continue;
    systems.push({
      system: before.system,
      accuracyA: before.accuracy,
      accuracyB: after.accuracy,
      accuracyDelta: after.accuracy - before.accuracy,
      costPerTaskA: before.costPerTaskUsd,
      costPerTaskB: after.costPerTaskUsd,
      costPerTaskDelta: after.costPerTaskUsd - before.costPerTaskUsd,
      costNominal: before.costNominal || after.costNominal,
    });
  }
  const passedA = passedByTask(a);
  const passedB = passedByTask(b);
  const flipped: FlippedTask[] = [];
  for (const [key, before] of passedA) {
    const after = passedB.get(key);
    if (after === undefined || after === before) continue;
    const [system, taskId] = JSON.parse(key) as [string, string];
    flipped.push({ taskId, system, direction: after ? 'fixed' : 'broken' });
  }
  flipped.sort(
    (left, right) =>
      left.system.localeCompare(right.system) || left.taskId.localeCompare(right.taskId),
  );
  return {
    systems,
    flipped,
    onlyInA: [...namesA].filter((name) => !namesB.has(name)),
    onlyInB: [...namesB].filter((name) => !namesA.has(name)),
    differences: runDifferences(a, b),
    systemChanges: systemChanges(systemsA, systemsB),
  };
}

function passedByTask(rows: readonly ResultRow[]): Map<string, boolean> {
  const passed = new Map<string, boolean>();
  for (const row of rows) {
    const key = JSON.stringify([row.system, row.taskId]);
    passed.set(key, (passed.get(key) ?? false) || row.passed);
  }
  return passed;
}

/** The comparison as markdown: a delta table and the flipped tasks. */
export function renderComparison(
  comparison: RunComparison,
  { labelA = 'A', labelB = 'B' }: { labelA?: string; labelB?: string } = {},
): string {
  const sign = (value: number, format: (value: number) => string) =>
    `${value > 0 ? '+' : value < 0 ? '−' : '±'}${format(Math.abs(value))}`;
  const warning = describeRunDifferences(comparison.differences, { labelA, labelB });
  const lines = [
    `# Comparison: ${labelA} → ${labelB}`,
    '',
    ...(warning === undefined ? [] : [`> **Warning:** ${warning}`, '']),
    `| System | Accuracy ${labelA} | Accuracy ${labelB} | Δ accuracy | Cost / task ${labelA} | Cost / task ${labelB} | Δ cost / task |`,
    '|---|---|---|---|---|---|---|',
    ...comparison.systems.map(
      (delta) =>
        `| ${delta.system} | ${percent(delta.accuracyA)} | ${percent(delta.accuracyB)} | ${sign(delta.accuracyDelta, percent)} | ${costCell(delta.costPerTaskA, delta.costNominal)} | ${costCell(delta.costPerTaskB, delta.costNominal)} | ${sign(delta.costPerTaskDelta, dollars)} |`,
    ),
    ...(comparison.systems.some((delta) => delta.costNominal) ? ['', NOMINAL_COST_NOTE] : []),
    '',
    ...(comparison.systemChanges.length === 0
      ? []
      : [
          '## Setting changes',
          '',
          ...comparison.systemChanges.map(
            (change) => `- ${change.system}: ${change.setting} ${change.a} → ${change.b}`,
          ),
          '',
        ]),
    `## Flipped tasks (${comparison.flipped.length})`,
    '',
  ];
  if (comparison.flipped.length === 0) lines.push('None.');
  for (const flip of comparison.flipped)
    lines.push(
      `- ${flip.direction === 'fixed' ? '✅ fixed' : '❌ broken'}: ${flip.system} · ${flip.taskId}`,
    );
  if (comparison.onlyInA.length > 0)
    lines.push('', `Only in ${labelA}: ${comparison.onlyInA.join(', ')}`);
  if (comparison.onlyInB.length > 0)
    lines.push('', `Only in ${labelB}: ${comparison.onlyInB.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
