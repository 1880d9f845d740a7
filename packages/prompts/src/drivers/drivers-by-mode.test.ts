import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../system/build-system-prompt.js';
import { builtinDrivers } from './builtin-drivers.js';
import { driversByMode } from './drivers-by-mode.js';
import { parseDriver } from './parse-driver.js';
import { resolveDrivers } from './resolve-drivers.js';

const names = (drivers: readonly { name: string }[]) => drivers.map((driver) => driver.name);

describe('built-in solo drivers', () => {
  it('ships hypothesis-budget and exploration-budget for solver mode, conflicting with coordinator', () => {
    for (const name of ['hypothesis-budget', 'exploration-budget']) {
      const driver = builtinDrivers().find((candidate) => candidate.name === name);
      expect(driver, name).toMatchObject({ modes: ['solver'], conflicts: ['coordinator'] });
    }
    const hypothesis = resolveDrivers(['hypothesis-budget'], { mode: 'solver' })[0];
    expect(hypothesis?.body).toContain('at most three live');
    expect(hypothesis?.body).toMatch(/least cost/);
    expect(hypothesis?.body).toMatch(/refuted and take it off the board/);
    const exploration = resolveDrivers(['exploration-budget'], { mode: 'solver' })[0];
    expect(exploration?.body).toMatch(/Orient[\s\S]*Commit[\s\S]*Execute/);
  });

  it('refuses a solo driver in coordinator mode with an error naming the driver and the mode', () => {
    for (const name of ['hypothesis-budget', 'exploration-budget']) {
      expect(() =>
        buildSystemPrompt({ depth: 0, maxDepth: 2, mode: 'coordinator', drivers: [name] }),
      ).toThrow(
        expect.objectContaining({
          code: 'prompts.driver_conflict',
          details: { driver: name, mode: 'coordinator' },
          message: expect.stringMatching(
            new RegExp(`"${name}".*cannot be used in coordinator mode.*written for solver mode`),
          ),
        }),
      );
    }
  });

  it('appends them to a solver prompt in both REPL languages without naming host helpers', () => {
    for (const repl of ['javascript', 'python'] as const) {
      const prompt = buildSystemPrompt({
        depth: 0,
        maxDepth: 2,
        repl,
        contextHelpers: false,
        drivers: ['hypothesis-budget', 'exploration-budget'],
      });
      expect(prompt).toContain('## Driver: hypothesis budget');
      expect(prompt).toContain('## Driver: exploration budget');
    }
    const bodies = resolveDrivers(['hypothesis-budget', 'exploration-budget'], { mode: 'solver' })
      .map((driver) => driver.body)
      .join('\n');
    expect(bodies).not.toMatch(/\b(?:grep|find_all|chunk|lines)\(|\bawait\b/);
  });
});

describe('driversByMode', () => {
  it('attaches each mode-limited driver only to the modes it fits', () => {
    const plan = driversByMode(
      ['delegation-first', 'hypothesis-budget', 'verify-before-final', 'delegation-first'],
      { modes: ['solver', 'coordinator'] },
    );
    expect(plan.map(({ mode, drivers }) => ({ mode, drivers: names(drivers) }))).toEqual([
      { mode: 'solver', drivers: ['hypothesis-budget', 'verify-before-final'] },
      { mode: 'coordinator', drivers: ['delegation-first', 'verify-before-final'] },
    ]);
    expect(plan[0]?.skipped).toEqual([{ driver: 'delegation-first', reason: 'conflicts' }]);
    expect(plan[1]?.skipped).toEqual([{ driver: 'hypothesis-budget', reason: 'conflicts' }]);
  });

  it('gives each mode what resolveDrivers gives it alone, with the reason for each skip', () => {
    const pythonOnly = parseDriver(
      '---\nname: py\ndescription: d\nrepls: [python]\n---\nBody',
      'py.md',
    );
    const [solver] = driversByMode(['await-discipline', pythonOnly, 'batch-discipline'], {
      modes: ['solver'],
      repl: 'python',
    });
    expect(names(solver?.drivers ?? [])).toEqual(
      names(resolveDrivers([pythonOnly, 'batch-discipline'], { mode: 'solver', repl: 'python' })),
    );
    expect(solver?.skipped).toEqual([{ driver: 'await-discipline', reason: 'repl' }]);
  });

  it('refuses a driver that conflicts with every mode given, and unknown names', () => {
    expect(() => driversByMode(['hypothesis-budget'], { modes: ['coordinator'] })).toThrow(
      expect.objectContaining({
        code: 'prompts.driver_conflict',
        details: { driver: 'hypothesis-budget', mode: 'coordinator' },
      }),
    );
    expect(() => driversByMode(['nope'], { modes: ['solver'] })).toThrow(
      expect.objectContaining({ code: 'prompts.driver_not_found' }),
    );
    expect(() => driversByMode([], { modes: [] })).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
  });
});
