import { describe, expect, it } from 'vitest';
import { BUILTIN_DRIVER_NAMES, builtinDrivers } from './builtin-drivers.js';
import { loadDrivers } from './load-drivers.js';
import { parseDriver, safeParseDriver } from './parse-driver.js';

const terse = [
  '---',
  'name: terse-answers',
  'description: Keep final answers short.',
  'modes: [solver]',
  'model: "anthropic/*"',
  '---',
  '',
  'Answer in one sentence.',
  '',
].join('\n');

function issuesOf(text: string): readonly string[] {
  const result = safeParseDriver(text, 'drivers/x.md');
  if (result.ok) throw new Error('expected an invalid driver');
  expect(result.error.code).toBe('prompts.driver_invalid');
  expect(result.error.details.source).toBe('drivers/x.md');
  return result.error.details.issues;
}

describe('parseDriver', () => {
  it('reads front-matter fields and the trimmed body', () => {
    expect(parseDriver(terse, 'drivers/terse.md')).toEqual({
      name: 'terse-answers',
      description: 'Keep final answers short.',
      modes: ['solver'],
      conflicts: [],
      model: 'anthropic/*',
      body: 'Answer in one sentence.',
      source: 'drivers/terse.md',
    });
  });

  it('defaults modes to both and accepts CRLF files', () => {
    const driver = parseDriver('---\r\nname: a\r\ndescription: d\r\n---\r\nBody.\r\n', 'a.md');
    expect(driver.modes).toEqual(['solver', 'coordinator']);
    expect(driver.body).toBe('Body.');
  });

  it('rejects a file without front-matter', () => {
    expect(issuesOf('Just text.')[0]).toContain('front-matter');
  });

  it('rejects front-matter that is not YAML', () => {
    expect(issuesOf('---\nname: [unclosed\n---\nBody')[0]).toContain('not valid YAML');
  });

  it('names each bad field', () => {
    const issues = issuesOf('---\nname: Not Kebab\nmodes: [solo]\nextra: 1\n---\nBody');
    expect(issues.some((issue) => issue.startsWith('name:'))).toBe(true);
    expect(issues.some((issue) => issue.startsWith('description:'))).toBe(true);
    expect(issues.some((issue) => issue.startsWith('modes.0:'))).toBe(true);
    expect(issues.some((issue) => issue.includes('extra'))).toBe(true);
  });

  it('rejects an empty body', () => {
    expect(issuesOf('---\nname: a\ndescription: d\n---\n   \n')).toContain(
      'body: expected markdown text after the front-matter',
    );
  });

  it('rejects a mode listed both in modes and in conflicts', () => {
    const issues = issuesOf(
      '---\nname: a\ndescription: d\nmodes: [solver]\nconflicts: [solver]\n---\nB',
    );
    expect(issues[0]).toMatch(/^conflicts:/);
  });

  it('throws the same error from the throwing variant', () => {
    expect(() => parseDriver('nope', 'x.md')).toThrow(
      expect.objectContaining({ code: 'prompts.driver_invalid' }),
    );
  });
});

describe('loadDrivers', () => {
  it('parses every file in order with its path as source', () => {
    const other = terse.replace('terse-answers', 'other');
    const drivers = loadDrivers([
      { path: 'd/terse.md', text: terse },
      { path: 'd/other.md', text: other },
    ]);
    expect(drivers.map((driver) => [driver.name, driver.source])).toEqual([
      ['terse-answers', 'd/terse.md'],
      ['other', 'd/other.md'],
    ]);
  });

  it('rejects two drivers with the same name', () => {
    expect(() =>
      loadDrivers([
        { path: 'a.md', text: terse },
        { path: 'b.md', text: terse },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: 'prompts.driver_invalid',
        details: { source: 'b.md', issues: [expect.stringContaining('a.md')] },
      }),
    );
  });
});

describe('builtinDrivers', () => {
  it('ships the seven required drivers, each parsing cleanly', () => {
    expect(BUILTIN_DRIVER_NAMES).toEqual([
      'verify-before-final',
      'deadline-final',
      'delegation-first',
      'batch-discipline',
      'await-discipline',
      'hypothesis-budget',
      'exploration-budget',
    ]);
    const drivers = builtinDrivers();
    expect(drivers.map((driver) => driver.name)).toEqual(BUILTIN_DRIVER_NAMES);
    for (const driver of drivers) expect(driver.source).toBe(`builtin:${driver.name}`);
  });

  it('makes delegation-first a coordinator-only driver that conflicts with solver mode', () => {
    const driver = builtinDrivers().find((candidate) => candidate.name === 'delegation-first');
    expect(driver?.modes).toEqual(['coordinator']);
    expect(driver?.conflicts).toEqual(['solver']);
  });
});
