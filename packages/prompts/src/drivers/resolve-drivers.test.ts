import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../system/build-system-prompt.js';
import { systemPromptSections } from '../system/system-prompt-sections.js';
import { builtinDrivers } from './builtin-drivers.js';
import { matchesModelGlob } from './model-glob.js';
import { parseDriver } from './parse-driver.js';
import { resolveDrivers } from './resolve-drivers.js';

const solo = parseDriver(
  '---\nname: solo-exploration\ndescription: Explore alone.\nmodes: [solver]\nconflicts: [coordinator]\n---\nNever delegate.',
  'drivers/solo.md',
);
const claudeOnly = parseDriver(
  '---\nname: claude-tips\ndescription: Model-specific advice.\nmodel: "anthropic/claude-*"\n---\nUse XML tags.',
  'drivers/claude.md',
);

describe('resolveDrivers', () => {
  it('looks names up among the built-ins and keeps the order given', () => {
    const drivers = resolveDrivers(['deadline-final', 'verify-before-final'], { mode: 'solver' });
    expect(drivers.map((driver) => driver.name)).toEqual(['deadline-final', 'verify-before-final']);
  });

  it('fails with driver_not_found for an unknown name', () => {
    expect(() => resolveDrivers(['no-such-driver'], { mode: 'solver' })).toThrow(
      expect.objectContaining({
        code: 'prompts.driver_not_found',
        details: { name: 'no-such-driver' },
      }),
    );
  });

  it('fails with driver_conflict when a driver conflicts with the active mode', () => {
    expect(() => resolveDrivers([solo], { mode: 'coordinator' })).toThrow(
      expect.objectContaining({
        code: 'prompts.driver_conflict',
        details: { driver: 'solo-exploration', mode: 'coordinator' },
      }),
    );
    expect(() => resolveDrivers(['delegation-first'], { mode: 'solver' })).toThrow(
      expect.objectContaining({ code: 'prompts.driver_conflict' }),
    );
  });

  it('skips a driver whose modes leave out the active mode', () => {
    const coordinatorOnly = parseDriver(
      '---\nname: c\ndescription: d\nmodes: [coordinator]\n---\nBody',
      'c.md',
    );
    expect(resolveDrivers([coordinatorOnly], { mode: 'solver' })).toEqual([]);
  });

  it('applies a model-glob driver only when the root model matches', () => {
    expect(
      resolveDrivers([claudeOnly], { mode: 'solver', model: 'anthropic/claude-haiku-4-5' }),
    ).toHaveLength(1);
    expect(resolveDrivers([claudeOnly], { mode: 'solver', model: 'openai/gpt-5' })).toEqual([]);
    expect(resolveDrivers([claudeOnly], { mode: 'solver' })).toEqual([]);
  });

  it('keeps a driver named twice once', () => {
    expect(
      resolveDrivers(['batch-discipline', 'batch-discipline'], { mode: 'solver' }),
    ).toHaveLength(1);
  });
});

describe('drivers in system prompts', () => {
  it('appends driver bodies at the root, after the other sections', () => {
    const sections = systemPromptSections({
      depth: 0,
      maxDepth: 2,
      mode: 'coordinator',
      drivers: ['delegation-first', 'await-discipline'],
    });
    expect(sections.slice(-2).map((section) => section.id)).toEqual([
      'driver:delegation-first',
      'driver:await-discipline',
    ]);
    const deadline = builtinDrivers().find((driver) => driver.name === 'deadline-final');
    expect(deadline).toBeDefined();
    expect(buildSystemPrompt({ depth: 0, maxDepth: 2, drivers: ['deadline-final'] })).toContain(
      `\n\n${deadline?.body}`,
    );
  });

  it('puts a driver body without its own heading under "## Driver: <name>"', () => {
    const sections = systemPromptSections({
      depth: 0,
      maxDepth: 2,
      drivers: [solo, 'await-discipline'],
    });
    expect(sections.at(-2)?.text).toBe('## Driver: solo-exploration\n\nNever delegate.');
    expect(sections.at(-1)?.text.startsWith('## Driver: await discipline\n')).toBe(true);
  });

  it('leaves drivers out below the root, without checking conflicts there', () => {
    const text = buildSystemPrompt({ depth: 1, maxDepth: 3, drivers: ['delegation-first', solo] });
    expect(text).not.toContain('## Driver');
  });

  it('rejects a conflicting driver at the root', () => {
    expect(() =>
      buildSystemPrompt({ depth: 0, maxDepth: 2, mode: 'coordinator', drivers: [solo] }),
    ).toThrow(expect.objectContaining({ code: 'prompts.driver_conflict' }));
  });
});

describe('matchesModelGlob', () => {
  it('supports * and ? and matches the whole id', () => {
    expect(matchesModelGlob('anthropic/*', 'anthropic/claude-opus-4-1')).toBe(true);
    expect(matchesModelGlob('*/gpt-?', 'openai/gpt-5')).toBe(true);
    expect(matchesModelGlob('gpt', 'openai/gpt-5')).toBe(false);
    expect(matchesModelGlob('a.b', 'axb')).toBe(false);
  });
});
