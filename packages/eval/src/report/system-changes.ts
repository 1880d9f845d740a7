import type { EvalSystem } from '../runner/eval-system.js';

/** One setting of a system that two runs set differently (what a comparison is usually about). */
export interface SystemChange {
  system: string;
  /** `model`, `subModel`, `promptMode`, `repl`, `drivers`, `maxDepth`, `maxIterations`, `contextWindow`. */
  setting: string;
  a: string;
  b: string;
}

const SETTINGS = [
  'model',
  'subModel',
  'promptMode',
  'repl',
  'drivers',
  'maxDepth',
  'maxIterations',
  'contextWindow',
] as const;

/**
 * The settings of each system both runs have (by name, from their `run.json`) that differ, such
 * as the drivers of `rlm-solver`, so a comparison says what changed between the two runs.
 */
export function systemChanges(a: readonly EvalSystem[], b: readonly EvalSystem[]): SystemChange[] {
  const changes: SystemChange[] = [];
  for (const before of a) {
    const after = b.find((system) => system.name === before.name);
    if (after === undefined) continue;
    for (const setting of SETTINGS) {
      const valueA = settingOf(before, setting);
      const valueB = settingOf(after, setting);
      if (valueA !== valueB) changes.push({ system: before.name, setting, a: valueA, b: valueB });
    }
  }
  return changes;
}

function settingOf(system: EvalSystem, setting: (typeof SETTINGS)[number]): string {
  const value = (system as Partial<Record<string, unknown>>)[setting];
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  return value === undefined ? '–' : String(value);
}
