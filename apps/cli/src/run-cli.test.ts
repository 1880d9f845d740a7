import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from './testing/run-cli-in-process.js';
import { BIN_PATH, createSandbox, type Sandbox } from './testing/spawn-cli.js';

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

const cli = (args: string[]) => runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });

describe('rlm', () => {
  it('prints its version', async () => {
    expect(await cli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('builds an executable bin that runs by itself, as a linked rlm runs it', () => {
    // The package's build script sets the mode, so a turbo cache restore keeps it too.
    expect(statSync(BIN_PATH).mode & 0o111).toBe(0o111);
    const path = [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter);
    const stdout = execFileSync(BIN_PATH, ['--version'], { encoding: 'utf8', env: { PATH: path } });
    expect(stdout).toBe(`${version}\n`);
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

  it('suggests --context when rlm run gets a file name after the query', async () => {
    writeFileSync(join(sandbox.dir, 'file.txt'), 'some text');
    const result = await cli(['run', 'What is in it?', 'file.txt']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      "rlm: rlm run takes one query, but got 2 arguments ('What is in it?' file.txt); to read file.txt as context, pass --context file.txt.\n",
    );
  });

  it('suggests quoting when rlm run gets a query of several unquoted words', async () => {
    const result = await cli(['run', 'what', 'is', 'this']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "rlm: rlm run takes one query, but got 3 arguments (what is this); quote a query of several words: rlm run 'what is this'.\n",
    );
  });

  it('prints a JSON error object on stdout for a usage error under --json', async () => {
    const unknown = await cli(['run', 'q', '--json', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toEqual({
      error: { code: 'cli.usage', message: "unknown option '--bogus'", exitCode: 2 },
    });
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    const missing = await cli([
      'run',
      'q',
      '--json',
      '--model',
      'testkit:needle-finder',
      '-c',
      'missing.txt',
    ]);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: {
        code: 'cli.context_unreadable',
        message:
          'Cannot read context missing.txt: no such file or directory; check the path (or pass - to read standard input).',
        exitCode: 2,
      },
    });
    const config = await cli(['config', '--json', '--max-depth', '0']);
    expect(config.code).toBe(2);
    expect(JSON.parse(config.stdout)).toMatchObject({ error: { code: 'config.invalid' } });
  });

  it('lists every model provider the CLI takes for an unknown one, openrouter/ included', async () => {
    const result = await cli(['run', 'q', '--model', 'foo/bar']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'use anthropic/<model>, openai/<model>, openrouter/<model>, openai-compatible/<model>@<base url> or testkit:<policy>.',
    );
  });

  it('asks for the run id of rlm resume, exit 2', async () => {
    const result = await cli(['resume']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'run-id'");
  });
});
