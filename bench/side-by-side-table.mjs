// The table bench/side-by-side.mjs prints: each target with our value, the reference engine's,
// their ratio, and whether the goal holds.
import { cpus, loadavg } from 'node:os';

/** Mean, p90 and median of per-turn samples ({ wallMs, cpuMs }), in µs. */
export function perTurnStats(turns) {
  if (turns.length === 0) return {};
  const sorted = (key) => turns.map((turn) => turn[key] * 1000).sort((a, b) => a - b);
  const wall = sorted('wallMs');
  const cpu = sorted('cpuMs');
  const at = (list, fraction) =>
    list[Math.min(list.length - 1, Math.floor(list.length * fraction))];
  return {
    wallMedian: at(wall, 0.5),
    cpuMean: cpu.reduce((sum, value) => sum + value, 0) / cpu.length,
    cpuP90: at(cpu, 0.9),
  };
}

const formatValue = (value, unit) => {
  if (value === undefined || Number.isNaN(value)) return 'not measured';
  if (unit === '×') return `${value.toFixed(1)}×`;
  return `${value.toFixed(value < 10 ? 2 : 0)} ${unit}`;
};

const formatRatio = (ratio) => (ratio === undefined ? 'not measured' : `${ratio.toFixed(2)}×`);

/** Whether a goal holds: an absolute goal on our value, else a ratio goal; '—' without either. */
function verdict({ ours, ratio, ratioGoal, absoluteGoal }) {
  if (absoluteGoal !== undefined && ours !== undefined) return ours <= absoluteGoal ? 'yes' : 'no';
  if (ratioGoal !== undefined && ratio !== undefined) return ratio <= ratioGoal ? 'yes' : 'no';
  return '—';
}

/**
 * Rows of the side-by-side table. A row's goal is a ratio to the reference (`ratioGoal`) or an
 * absolute value (`absoluteGoal`); `noCounterpart` marks targets the reference engine has no
 * counterpart of.
 */
export function sideBySideTable({ referenceDir }) {
  const rows = [];
  return {
    row(what, { goal, ours, theirs, unit, ratioGoal, absoluteGoal, noCounterpart = false, note }) {
      const ratio = ours !== undefined && theirs !== undefined ? ours / theirs : undefined;
      const row = {
        what,
        goal,
        ours: formatValue(ours, unit),
        theirs: noCounterpart ? '—' : formatValue(theirs, unit),
        ratio: noCounterpart ? '—' : formatRatio(ratio),
        holds: verdict({ ours, ratio, ratioGoal, absoluteGoal }),
        note: note ?? '',
      };
      rows.push(row);
      process.stdout.write(
        `${what}: ${row.ours} vs rlmpaper ${row.theirs} (${row.ratio}; goal ${goal}) ${row.holds}\n`,
      );
    },
    print() {
      const load = loadavg()
        .map((value) => value.toFixed(1))
        .join(' / ');
      process.stdout.write(
        `\nMeasured ${new Date().toISOString()}, Node ${process.version}, ${cpus().length} cores, load average (1/5/15 min) at the end ${load}; reference ${referenceDir ?? 'not given (set RLM_REFERENCE_DIR or --reference=DIR)'}.\n\n`,
      );
      process.stdout.write(
        '| Target | Goal | ours | rlmpaper | ours / rlmpaper | Holds | Note |\n',
      );
      process.stdout.write('|---|---|---|---|---|---|---|\n');
      for (const row of rows) {
        process.stdout.write(
          `| ${row.what} | ${row.goal} | ${row.ours} | ${row.theirs} | ${row.ratio} | ${row.holds} | ${row.note} |\n`,
        );
      }
    },
  };
}
