import { type ReplLanguage, RlmError } from '@rlm/protocol';
import type { PromptMode } from '../system/prompt-mode.js';
import { BUILTIN_DRIVER_FILES, type BuiltinDriverName } from './builtin-drivers.js';
import type { Driver } from './driver.js';
import { matchesModelGlob } from './model-glob.js';
import { parseDriver } from './parse-driver.js';

/** A driver to use: a built-in's name or a driver parsed from a file. */
export type DriverRef = string | Driver;

export interface ResolveDriversOptions {
  /** The root's active mode. */
  mode: PromptMode;
  /** The root model id, matched against drivers' `model` globs. */
  model?: string | undefined;
  /** The REPL language; drivers whose `repls` leave it out are skipped. @default 'javascript' */
  repl?: ReplLanguage | undefined;
}

function isBuiltinName(name: string): name is BuiltinDriverName {
  return Object.hasOwn(BUILTIN_DRIVER_FILES, name);
}

/** Looks a reference up: a built-in's name is parsed, a parsed driver is returned as is. */
export function lookupDriver(ref: DriverRef): Driver {
  if (typeof ref !== 'string') return ref;
  if (!isBuiltinName(ref)) {
    throw new RlmError({
      code: 'prompts.driver_not_found',
      message: `No built-in driver named "${ref}" (built-ins: ${Object.keys(BUILTIN_DRIVER_FILES).join(', ')})`,
      details: { name: ref },
    });
  }
  return parseDriver(BUILTIN_DRIVER_FILES[ref], `builtin:${ref}`);
}

/**
 * Turns driver references into the drivers that apply: names are looked up among the built-ins,
 * a driver that conflicts with `mode` is an error, and drivers whose `modes` leave out `mode`,
 * whose `repls` leave out `repl`, or whose `model` glob does not match `model` are skipped (a glob
 * never matches an unknown model).
 * Order is kept; a driver named twice is kept once.
 *
 * @throws RlmError `prompts.driver_not_found` for an unknown name
 * @throws RlmError `prompts.driver_conflict` when a driver lists `mode` in its `conflicts`
 * @example
 * resolveDrivers(['verify-before-final'], { mode: 'solver' });
 */
export function resolveDrivers(
  refs: readonly DriverRef[],
  { mode, model, repl = 'javascript' }: ResolveDriversOptions,
): Driver[] {
  const applied: Driver[] = [];
  for (const ref of refs) {
    const driver = lookupDriver(ref);
    if (driver.conflicts.includes(mode)) throw driverConflict(driver, mode);
    if (!appliesTo(driver, { mode, model, repl })) continue;
    if (applied.some((kept) => kept.name === driver.name)) continue;
    applied.push(driver);
  }
  return applied;
}

/** The `prompts.driver_conflict` error for `driver` selected in `mode`, naming where it fits. */
export function driverConflict(
  driver: Driver,
  mode: PromptMode,
): RlmError<'prompts.driver_conflict'> {
  return new RlmError({
    code: 'prompts.driver_conflict',
    message: `Driver "${driver.name}" (${driver.source}) cannot be used in ${mode} mode: it lists ${mode} in its conflicts; it is written for ${driver.modes.join(' and ')} mode`,
    details: { driver: driver.name, mode },
  });
}

/**
 * Whether a driver that does not conflict with `mode` is added in it: `modes` includes the mode,
 * `repls` (when given) the REPL language, and its `model` glob (when given) matches the model.
 */
export function appliesTo(
  driver: Driver,
  { mode, model, repl = 'javascript' }: ResolveDriversOptions,
): boolean {
  if (!driver.modes.includes(mode)) return false;
  if (driver.repls !== undefined && !driver.repls.includes(repl)) return false;
  return (
    driver.model === undefined || (model !== undefined && matchesModelGlob(driver.model, model))
  );
}
