import { formatSize } from '../generators/parse-size.js';
import { formatDuration } from '../runner/eval-progress.js';
import type { EvalSystem, RlmSystem } from '../runner/eval-system.js';
import type { EvalSummary, SystemSummary } from './summarize-rows.js';

/** Percent with one decimal: `87.5%`. */
export function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** Dollars with enough digits for cheap runs: `$0.0123`. */
export function dollars(value: number): string {
  return `$${value.toFixed(value >= 10 ? 2 : 4)}`;
}

/**
 * What `nominal` after a cost means. Offline models cost nothing; eval prices them anyway so the cost
 * columns and `--max-cost` can be tried without a key, and says so wherever it shows the cost.
 */
export const NOMINAL_COST_NOTE =
  "Nominal costs: offline `testkit:` models cost nothing; eval prices them at a nominal $1 / $5 per million input / output tokens (through `--offline-transport fake-anthropic`, at the emulated model's list price) so the cost columns and `--max-cost` can be tried. No money was spent; `rlm run` counts the same models at $0 unless given `--input-price` and `--output-price`.";

/** A cost, followed by `nominal` when it is (see `NOMINAL_COST_NOTE`). */
export function costCell(value: number, nominal: boolean): string {
  return `${dollars(value)}${nominal ? ' nominal' : ''}`;
}

export interface RenderReportOptions {
  /** @default 'Eval report' */
  title?: string;
  /** The systems that ran: when given, a table says what each was (model, mode, REPL, drivers). */
  systems?: readonly EvalSystem[];
}

/**
 * The report as markdown: one row per system (accuracy with its 95% Wilson interval, pass@k, mean
 * score, cost per task, cost per correct answer, passed per dollar, latency p50/p95, statuses), then what each system was
 * (when `systems` are given), then accuracy per context size.
 */
export function renderMarkdownReport(
  summary: EvalSummary,
  { title = 'Eval report', systems = [] }: RenderReportOptions = {},
): string {
  const lines = [
    `# ${title}`,
    '',
    `Benchmarks: ${summary.benchmarks.join(', ') || '(none)'} · ${summary.rows} attempts`,
    '',
    '| System | Accuracy (95% CI) | pass@k | Mean score | Cost / task | Cost / correct | Passed per $ | Latency p50 / p95 | Statuses |',
    '|---|---|---|---|---|---|---|---|---|',
    ...summary.systems.map(systemLine),
  ];
  if (summary.systems.some((system) => system.costNominal)) lines.push('', NOMINAL_COST_NOTE);
  if (summary.systems.some((system) => system.cachedCalls > 0))
    lines.push('', ...cacheLines(summary));
  if (systems.length > 0) lines.push('', ...setupLines(systems));
  const sizes = [...new Set(summary.bySize.map((point) => point.contextChars))].sort(
    (a, b) => a - b,
  );
  if (sizes.length > 0) {
    const systems = summary.systems.map((system) => system.system);
    lines.push(
      '',
      '## Accuracy by context length',
      '',
      `| Context | ${systems.join(' | ')} |`,
      `|---|${systems.map(() => '---|').join('')}`,
    );
    for (const size of sizes) {
      const cells = systems.map((system) => {
        const point = summary.bySize.find(
          (entry) => entry.system === system && entry.contextChars === size,
        );
        return point === undefined ? '–' : `${percent(point.accuracy)} (${point.attempts})`;
      });
      lines.push(`| ${formatSize(size)} | ${cells.join(' | ')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function systemLine(system: SystemSummary): string {
  const statuses = Object.entries(system.statuses)
    .map(([status, count]) => `${status} ${count}`)
    .join(', ');
  const truncated = system.truncated > 0 ? `, truncated ${system.truncated}` : '';
  return [
    '',
    ` ${system.system} `,
    ` ${percent(system.accuracy)} (${percent(system.accuracyLow)}–${percent(system.accuracyHigh)}) `,
    ` pass@${system.passAtK.k} ${percent(system.passAtK.value)} `,
    ` ${system.meanScore.toFixed(3)} `,
    ` ${costCell(system.costPerTaskUsd, system.costNominal)} `,
    ` ${system.costPerCorrectUsd === null ? '–' : costCell(system.costPerCorrectUsd, system.costNominal)} `,
    ` ${system.passedPerUsd === null ? '–' : `${system.passedPerUsd.toFixed(1)}${system.costNominal ? ' nominal' : ''}`} `,
    ` ${formatDuration(system.latencyP50Ms)} / ${formatDuration(system.latencyP95Ms)} `,
    ` ${statuses}${truncated} `,
    '',
  ].join('|');
}

/**
 * What the sub-call cache answered (`rlm eval --cache`): cached calls cost nothing, so the cost
 * columns above count only what was paid; the saving is what those calls cost when first made.
 */
function cacheLines(summary: EvalSummary): string[] {
  return [
    '## Sub-call cache',
    '',
    'Cached calls cost nothing: the costs above are what was paid. Saved is what they cost when first made.',
    '',
    '| System | Cached calls | Saved |',
    '|---|---|---|',
    ...summary.systems.map(
      (system) =>
        `| ${system.system} | ${system.cachedCalls} | ${costCell(system.savedCostUsd, system.costNominal)} |`,
    ),
  ];
}

/** What each system was, so a report says which system had which drivers. */
function setupLines(systems: readonly EvalSystem[]): string[] {
  return [
    '## Systems',
    '',
    '| System | Kind | Model | Mode | REPL | Drivers |',
    '|---|---|---|---|---|---|',
    ...systems.map((system) =>
      system.kind === 'rlm'
        ? `| ${system.name} | rlm | ${models(system)} | ${system.promptMode} | ${system.repl} | ${system.drivers.join(', ') || 'none'} |`
        : `| ${system.name} | base | ${system.model} | – | – | – |`,
    ),
  ];
}

function models(system: RlmSystem): string {
  return system.subModel === undefined ? system.model : `${system.model} (sub: ${system.subModel})`;
}
