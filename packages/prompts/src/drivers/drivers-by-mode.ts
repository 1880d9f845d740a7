import { type ReplLanguage, RlmError } from '@rlm/protocol';

import type { PromptMode } from '../system/prompt-mode.js';
import type { Driver } from './driver.js';
import { appliesTo, type DriverRef, driverConflict, lookupDriver } from './resolve-drivers.js';

/** The settings `driversByMode` sorts drivers for. */
export interface DriversByModeOptions {
  /** The modes being run, for example both systems of an eval. At least one. */
  modes: readonly PromptMode[];
  /** The root model id, matched against drivers' `model` globs. */
  model?: string | undefined;
  /** The REPL language. @default 'javascript' */
  repl?: ReplLanguage | undefined;
}

/** The drivers one mode gets, and the ones it leaves out with the reason. */
export interface ModeDrivers {
  mode: PromptMode;
  /** The drivers that apply in this mode, in the order given, each once. */
  drivers: Driver[];
  /** Drivers given but not applied in this mode. */
  skipped: { driver: string; reason: 'conflicts' | 'mode' | 'repl' | 'model' }[];
}

/**
 * Tells which of the given drivers apply to which of several modes, so a caller that runs more
 * than one mode (an eval comparing solver and coordinator) can attach a mode-limited driver only
 * where it fits instead of refusing it: `delegation-first` goes to coordinator,
 * `hypothesis-budget` to solver. A driver that conflicts with a mode is simply not attached
 * there. Each mode's list equals what `resolveDrivers` returns for that mode alone, minus the
 * conflicting drivers.
 *
 * @throws RlmError `prompts.driver_not_found` for an unknown built-in name
 * @throws RlmError `prompts.driver_conflict` when a driver conflicts with every mode given (it
 *   could apply nowhere), naming the driver and the first mode
 * @throws RlmError `config.invalid` when `modes` is empty
 * @example
 * driversByMode(['delegation-first', 'hypothesis-budget'], { modes: ['solver', 'coordinator'] });
 * // [{ mode: 'solver', drivers: [hypothesis-budget], … }, { mode: 'coordinator', drivers: [delegation-first], … }]
 */
export function driversByMode(
  refs: readonly DriverRef[],
  { modes, model, repl = 'javascript' }: DriversByModeOptions,
): ModeDrivers[] {
  const [firstMode] = modes;
  if (firstMode === undefined) {
    throw new RlmError({
      code: 'config.invalid',
      message: 'modes: expected at least one mode (solver or coordinator)',
      details: { source: 'driversByMode options', issues: ['modes: expected at least one mode'] },
    });
  }
  const drivers = refs
    .map(lookupDriver)
    .filter((driver, index, all) => all.findIndex((other) => other.name === driver.name) === index);
  for (const driver of drivers) {
    if (modes.every((mode) => driver.conflicts.includes(mode))) {
      throw driverConflict(driver, firstMode);
    }
  }
  return [...new Set(modes)].map((mode) => {
    const result: ModeDrivers = { mode, drivers: [], skipped: [] };
    for (const driver of drivers) {
      const reason = skipReason(driver, { mode, model, repl });
      if (reason === undefined) result.drivers.push(driver);
      else result.skipped.push({ driver: driver.name, reason });
    }
    return result;
  });
}

function skipReason(
  driver: Driver,
  options: { mode: PromptMode; model: string | undefined; repl: ReplLanguage },
): ModeDrivers['skipped'][number]['reason'] | undefined {
  if (driver.conflicts.includes(options.mode)) return 'conflicts';
  if (appliesTo(driver, options)) return undefined;
  if (!driver.modes.includes(options.mode)) return 'mode';
  if (driver.repls !== undefined && !driver.repls.includes(options.repl)) return 'repl';
  return 'model';
}
