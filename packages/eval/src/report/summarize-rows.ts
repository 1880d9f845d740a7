import type { ResultRow } from '../runner/result-row.js';
import { passAtK, percentile, wilsonInterval } from './statistics.js';

/** One system's numbers over a set of rows. */
export interface SystemSummary {
  system: string;
  /** Distinct tasks. */
  tasks: number;
  /** Rows (attempts). */
  attempts: number;
  passed: number;
  /** Passed attempts over attempts (the pass@1 estimate). */
  accuracy: number;
  /** 95% Wilson interval of `accuracy`. */
  accuracyLow: number;
  accuracyHigh: number;
  /** Mean score (partial credit, e.g. F1). */
  meanScore: number;
  /** pass@k for k = the smallest number of attempts any task has (k ≥ 1). */
  passAtK: { k: number; value: number };
  costUsd: number;
  /** Some of the cost is nominal (offline `testkit:` models): no money was spent on it. */
  costNominal: boolean;
  costPerTaskUsd: number;
  /** What one correct answer cost: all attempts' cost over passed attempts; `null` when none passed. */
  costPerCorrectUsd: number | null;
  /** Passed attempts per US dollar; `null` when nothing was spent. */
  passedPerUsd: number | null;
  latencyP50Ms: number;
  latencyP95Ms: number;
  inputTokens: number;
  outputTokens: number;
  /** Sub-calls the cache answered (`rlm eval --cache`), and what they cost when first made. */
  cachedCalls: number;
  savedCostUsd: number;
  /** Rows per status, e.g. `{ completed: 9, max_iterations: 1 }`. */
  statuses: Record<string, number>;
  /** Rows whose context the base system had to cut. */
  truncated: number;
}

/** Accuracy of one system at one context size (a point of the chart). */
export interface SizePoint {
  system: string;
  contextChars: number;
  attempts: number;
  accuracy: number;
}

/** What `summary.json` holds. */
export interface EvalSummary {
  systems: SystemSummary[];
  bySize: SizePoint[];
  benchmarks: string[];
  rows: number;
}

/**
 * Summarises result rows per system (in first-seen order) and per system and context size.
 * Every number is recomputable from the rows alone.
 */
export function summarizeRows(rows: readonly ResultRow[]): EvalSummary {
  const systems = [...new Set(rows.map((row) => row.system))];
  return {
    systems: systems.map((system) =>
      summarizeSystem(
        system,
        rows.filter((row) => row.system === system),
      ),
    ),
    bySize: systems.flatMap((system) =>
      sizePoints(
        system,
        rows.filter((row) => row.system === system),
      ),
    ),
    benchmarks: [...new Set(rows.map((row) => row.benchmark))],
    rows: rows.length,
  };
}

function summarizeSystem(system: string, rows: readonly ResultRow[]): SystemSummary {
  const passed = rows.filter((row) => row.passed).length;
  const costUsd = rows.reduce((sum, row) => sum + row.costUsd, 0);
  const byTask = groupBy(rows, (row) => row.taskId);
  const k = Math.max(1, Math.min(...[...byTask.values()].map((attempts) => attempts.length)));
  const passAtKValue =
    byTask.size === 0
      ? 0
      : [...byTask.values()].reduce(
          (sum, attempts) =>
            sum +
            passAtK({ n: attempts.length, c: attempts.filter((row) => row.passed).length, k }),
          0,
        ) / byTask.size;
  const { low, high } = wilsonInterval({ successes: passed, trials: rows.length });
  const latencies = rows.map((row) => row.latencyMs);
  const statuses: Record<string, number> = {};
  for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
  return {
    system,
    tasks: byTask.size,
    attempts: rows.length,
    passed,
    accuracy: rows.length === 0 ? 0 : passed / rows.length,
    accuracyLow: low,
    accuracyHigh: high,
    meanScore: rows.length === 0 ? 0 : rows.reduce((sum, row) => sum + row.score, 0) / rows.length,
    passAtK: { k, value: passAtKValue },
    costUsd,
    costNominal: rows.some((row) => row.costNominal === true),
    costPerTaskUsd: rows.length === 0 ? 0 : costUsd / rows.length,
    costPerCorrectUsd: passed === 0 ? null : costUsd / passed,
    passedPerUsd: costUsd > 0 ? passed / costUsd : null,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP95Ms: percentile(latencies, 0.95),
    inputTokens: rows.reduce((sum, row) => sum + row.inputTokens, 0),
    outputTokens: rows.reduce((sum, row) => sum + row.outputTokens, 0),
    cachedCalls: rows.reduce((sum, row) => sum + (row.cachedCalls ?? 0), 0),
    savedCostUsd: rows.reduce((sum, row) => sum + (row.savedCostUsd ?? 0), 0),
    statuses,
    truncated: rows.filter((row) => row.truncatedChars > 0).length,
  };
}

/** Rows are grouped by the generator's size bucket: contexts within 25% of each other share a point. */
function sizePoints(system: string, rows: readonly ResultRow[]): SizePoint[] {
  const sorted = [...rows].sort((a, b) => a.contextChars - b.contextChars);
  const buckets: ResultRow[][] = [];
  for (const row of sorted) {
    const bucket = buckets.at(-1);
    const first = bucket?.[0];
    if (
      bucket !== undefined &&
      first !== undefined &&
      row.contextChars <= first.contextChars * 1.25
    )
      bucket.push(row);
    else buckets.push([row]);
  }
  return buckets.map((bucket) => ({
    system,
    contextChars: Math.round(
      bucket.reduce((sum, row) => sum + row.contextChars, 0) / bucket.length,
    ),
    attempts: bucket.length,
    accuracy: bucket.filter((row) => row.passed).length / bucket.length,
  }));
}

function groupBy<TItem>(
  items: readonly TItem[],
  key: (item: TItem) => string,
): Map<string, TItem[]> {
  const groups = new Map<string, TItem[]>();
  for (const item of items) {
    const name = key(item);
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [item]);
    else group.push(item);
  }
  return groups;
}
