import {
  BUILTIN_DRIVER_NAMES,
  builtinDrivers,
  type Driver,
  PROMPT_MODES,
  type PromptMode,
} from '@rlm/prompts';
import type { ReplLanguage } from '@rlm/protocol';
import { z } from 'zod';

/** A driver the user chose: for one mode (`solver:verify-before-final`) or every mode it fits. */
export interface DriverChoice {
  name: string;
  /** The mode it was given for; every mode it fits when absent. */
  mode?: PromptMode;
}

/** `NAME` or `MODE:NAME`, with a built-in driver's name and a prompt mode. */
export const driverChoiceSchema = z.string().transform((text, context): DriverChoice => {
  const colon = text.indexOf(':');
  const name = colon < 0 ? text : text.slice(colon + 1);
  const mode = colon < 0 ? undefined : text.slice(0, colon);
  if (mode !== undefined && !(PROMPT_MODES as readonly string[]).includes(mode)) {
    context.addIssue({
      code: 'custom',
      message: `unknown mode "${mode}" in "${text}" (expected NAME or MODE:NAME, modes: ${PROMPT_MODES.join(', ')})`,
    });
    return z.NEVER;
  }
  if (!(BUILTIN_DRIVER_NAMES as readonly string[]).includes(name)) {
    context.addIssue({
      code: 'custom',
      message: `unknown driver "${name}" (built-ins: ${BUILTIN_DRIVER_NAMES.join(', ')})`,
    });
    return z.NEVER;
  }
  return mode === undefined ? { name } : { name, mode: mode as PromptMode };
});

/**
 * Which drivers each mode's system gets: a choice with a mode goes to that mode's system, and
 * must fit it; a bare choice goes to every mode of the eval it fits (its front matter's `modes`,
 * not its `conflicts`, and the REPL language), and must fit one. Order is kept; a driver chosen
 * twice for a mode is kept once.
 *
 * @returns the driver names per mode, or what is wrong with each choice that cannot be attached
 */
export function attachDrivers(
  choices: readonly DriverChoice[],
  { modes, repl }: { modes: readonly PromptMode[]; repl: ReplLanguage },
): { ok: true; drivers: Map<PromptMode, string[]> } | { ok: false; issues: string[] } {
  const known = new Map(builtinDrivers().map((driver) => [driver.name, driver]));
  const drivers = new Map<PromptMode, string[]>(modes.map((mode) => [mode, []]));
  const issues: string[] = [];
  for (const choice of choices) {
    const driver = known.get(choice.name);
    if (driver === undefined) continue; // the schema refused it already
    const issue =
      choice.mode === undefined
        ? attachToFitting(driver, { modes, repl, drivers })
        : attachToMode(driver, { mode: choice.mode, modes, repl, drivers });
    if (issue !== undefined) issues.push(issue);
  }
  return issues.length === 0 ? { ok: true, drivers } : { ok: false, issues };
}

interface Attachment {
  modes: readonly PromptMode[];
  repl: ReplLanguage;
  drivers: Map<PromptMode, string[]>;
}

/** A `MODE:NAME` choice: that mode's system gets it, if the eval runs the mode and it fits. */
function attachToMode(
  driver: Driver,
  { mode, modes, repl, drivers }: Attachment & { mode: PromptMode },
): string | undefined {
  const label = `${mode}:${driver.name}`;
  if (!modes.includes(mode)) {
    return `"${label}" is for ${mode} mode, which this eval does not run (modes: ${modes.join(', ')})`;
  }
  const misfit = misfitOf(driver, { mode, repl });
  if (misfit !== undefined) return `"${label}" does not fit: ${misfit}`;
  add(drivers, mode, driver.name);
  return undefined;
}

/** A bare choice: every mode's system it fits gets it; it must fit one. */
function attachToFitting(driver: Driver, { modes, repl, drivers }: Attachment): string | undefined {
  const fitting = modes.filter((mode) => misfitOf(driver, { mode, repl }) === undefined);
  for (const mode of fitting) add(drivers, mode, driver.name);
  if (fitting.length > 0) return undefined;
  const reasons = modes.map((mode) => misfitOf(driver, { mode, repl })).join('; ');
  return `"${driver.name}" fits none of this eval's modes (${modes.join(', ')}): ${reasons}`;
}

/** Why a driver does not apply in a mode and REPL language, or `undefined` when it does. */
function misfitOf(
  driver: Driver,
  { mode, repl }: { mode: PromptMode; repl: ReplLanguage },
): string | undefined {
  if (driver.conflicts.includes(mode)) return `${driver.name} conflicts with ${mode} mode`;
  if (!driver.modes.includes(mode)) {
    return `${driver.name} applies to ${driver.modes.join(' and ')} mode only`;
  }
  if (driver.repls !== undefined && !driver.repls.includes(repl)) {
    return `${driver.name} is written for ${driver.repls.join(' and ')} REPLs, not ${repl}`;
  }
  return undefined;
}

function add(drivers: Map<PromptMode, string[]>, mode: PromptMode, name: string): void {
  const names = drivers.get(mode) ?? [];
  if (!names.includes(name)) names.push(name);
  drivers.set(mode, names);
}
