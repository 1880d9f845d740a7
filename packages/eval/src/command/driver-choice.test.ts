import { describe, expect, it } from 'vitest';
import { attachDrivers } from './driver-choice.js';
import { parseEvalCommandOptions, safeParseEvalCommandOptions } from './eval-command-options.js';
import { systemsFrom } from './run-eval-command.js';

const base = { benchmark: 'sniah', model: 'testkit:reference', systems: ['rlm'] };

/** The drivers of each rlm system the options make, by system name. */
function driversBySystem(input: Record<string, unknown>) {
  return Object.fromEntries(
    systemsFrom(parseEvalCommandOptions({ ...base, ...input })).map((system) => [
      system.name,
      system.kind === 'rlm' ? system.drivers : undefined,
    ]),
  );
}

describe('drivers per mode', () => {
  it('attaches a bare driver to every mode it fits and a MODE:NAME driver to that mode only', () => {
    expect(
      driversBySystem({
        modes: ['solver', 'coordinator'],
        drivers: ['delegation-first', 'solver:deadline-final', 'verify-before-final'],
      }),
    ).toEqual({
      'rlm-solver': ['deadline-final', 'verify-before-final'],
      'rlm-coordinator': ['delegation-first', 'verify-before-final'],
    });
  });

  it('keeps a driver chosen twice for one mode once', () => {
    expect(
      driversBySystem({ drivers: ['verify-before-final', 'solver:verify-before-final'] }),
    ).toEqual({ 'rlm-solver': ['verify-before-final'] });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a MODE:NAME driver that conflicts with its mode',
      { modes: ['solver', 'coordinator'], drivers: ['solver:delegation-first'] },
      '"solver:delegation-first" does not fit: delegation-first conflicts with solver mode',
    ],
    [
      'a bare driver that fits none of the modes',
      { modes: ['solver'], drivers: ['delegation-first'] },
      `"delegation-first" fits none of this eval's modes (solver): delegation-first conflicts with solver mode`,
    ],
    [
      'a driver for a mode the eval does not run',
      { modes: ['solver'], drivers: ['coordinator:verify-before-final'] },
      '"coordinator:verify-before-final" is for coordinator mode, which this eval does not run (modes: solver)',
    ],
    [
      'a driver written for another REPL language',
      { repl: 'python', drivers: ['await-discipline'] },
      'await-discipline is written for javascript REPLs, not python',
    ],
    [
      'an unknown mode',
      { drivers: ['chef:verify-before-final'] },
      'unknown mode "chef" in "chef:verify-before-final"',
    ],
    ['an unknown driver', { drivers: ['solver:nope'] }, 'unknown driver "nope" (built-ins:'],
  ])('refuses %s, naming it', (_name, input, message) => {
    const parsed = safeParseEvalCommandOptions({ ...base, ...input });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.issues).toContainEqual({
      key: 'drivers',
      message: expect.stringContaining(message),
    });
  });

  it('gives every mode an entry, empty when no driver fits it', () => {
    const attached = attachDrivers([{ name: 'delegation-first' }], {
      modes: ['solver', 'coordinator'],
      repl: 'javascript',
    });
    expect(attached).toEqual({
      ok: true,
      drivers: new Map([
        ['solver', []],
        ['coordinator', ['delegation-first']],
      ]),
    });
  });
});
