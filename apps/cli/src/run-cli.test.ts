import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, spawnCli } from './testing/spawn-cli.js';

const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  version: string;
};
const COMMANDS = [
  ['run'],
  ['trace'],
  ['replay'],
  ['resume'],
  ['prompts'],
  ['prompts', 'show'],
  ['config'],
  ['completion'],
];

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

const cli = (args: string[]) => spawnCli(args, { cwd: sandbox.dir, env: sandbox.env });

describe('rlm', () => {
  it('prints its version', async () => {
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('shows help with examples for every command, exit 0', async () => {
    const results = await Promise.all(COMMANDS.map((command) => cli([...command, '--help'])));
    for (const [index, result] of results.entries()) {
      expect({ command: COMMANDS[index], code: result.code }).toEqual({
        command: COMMANDS[index],
        code: 0,
      });
      expect(result.stdout).toContain('Examples:\n  $ rlm');
    }
  });

  it('shows eval’s own help for eval --help', async () => {
    const result = await cli(['eval', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: rlm eval \[options\] \[command\]\n/);
  });

  it('shows help on stderr and exits 2 without a command', async () => {
    const result = await cli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: rlm [options] [command]');
  });

  it('asks for the run id of rlm resume, exit 2', async () => {
    const result = await cli(['resume']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'run-id'");
  });
});
