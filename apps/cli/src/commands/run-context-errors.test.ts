import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
// The model is checked before any context is read: an offline one, so these reach the context.
let env: Record<string, string>;
beforeEach(() => {
  sandbox = createSandbox();
  env = { ...sandbox.env, RLM_MODEL: 'testkit:needle-finder' };
});
afterEach(() => sandbox.dispose());

async function run(args: string[]) {
  return runCliInProcess(['run', 'What is in it?', ...args], { cwd: sandbox.dir, env });
}

/** One sentence, no stack trace, exit code 2. */
function expectUsageError(result: { code: number | null; stderr: string; stdout: string }): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('rlm run context errors', () => {
  it('explains a missing file and how to fix it', async () => {
    const result = await run(['--context', 'missing.txt']);
    expectUsageError(result);
    expect(result.stderr).toBe(
      'rlm: Cannot read context missing.txt: no such file or directory; check the path (or pass - to read standard input).\n',
    );
  });

  it('explains an unreadable file', async () => {
    writeFileSync(join(sandbox.dir, 'secret.txt'), 'x');
    chmodSync(join(sandbox.dir, 'secret.txt'), 0o000);
    // Root reads any file whatever its mode, so as root the CLI runs without that power: in a
    // process of its own, which is why this one test is not run in process.
    const result = await spawnCli(['run', 'What is in it?', '--context', 'secret.txt'], {
      cwd: sandbox.dir,
      env,
      withoutFileOverride: process.getuid?.() === 0,
    });
    expectUsageError(result);
    expect(result.stderr).toBe(
      'rlm: Cannot read context secret.txt: permission denied; check the file permissions.\n',
    );
  });

  it('explains a binary file', async () => {
    writeFileSync(join(sandbox.dir, 'photo.jpg'), Buffer.from([0xff, 0xd8, 0x00, 0x10]));
    const result = await run(['--context', 'photo.jpg']);
    expectUsageError(result);
    expect(result.stderr).toContain('Context file photo.jpg is binary, not text');
  });

  it('explains a context over the maximum and names the flag to raise it', async () => {
    writeFileSync(join(sandbox.dir, 'big.txt'), 'x'.repeat(5000));
    const result = await run(['--context', 'big.txt', '--max-context-bytes', '1000']);
    expectUsageError(result);
    expect(result.stderr).toContain('Context big.txt is 5.0 KB, over the 1.0 KB maximum');
    expect(result.stderr).toContain('--max-context-bytes');
  });

  it('explains a glob that matches nothing', async () => {
    const result = await run(['--context', '*.nothing']);
    expectUsageError(result);
    expect(result.stderr).toContain('matched no files');
  });

  it('explains an empty directory and one with only skipped files', async () => {
    mkdirSync(join(sandbox.dir, 'empty'));
    const empty = await run(['--context', 'empty']);
    expectUsageError(empty);
    expect(empty.stderr).toBe(
      'rlm: Context directory empty is empty; pass a directory with text files in it.\n',
    );
    mkdirSync(join(sandbox.dir, 'pics'));
    writeFileSync(join(sandbox.dir, 'pics', 'cat.jpg'), Buffer.from([0xff, 0xd8, 0x00, 0x10]));
    writeFileSync(join(sandbox.dir, 'pics', '.DS_Store'), 'x');
    const skipped = await run(['--context', 'pics']);
    expectUsageError(skipped);
    expect(skipped.stderr).toContain(
      'rlm: Context directory pics has no text file to read: skipped 1 file hidden (a name starting with a dot) (.DS_Store), 1 file binary (cat.jpg)',
    );
  });

  it('refuses standard input given twice', async () => {
    const result = await runCliInProcess(['run', 'q', '-c', '-', '-c', '-'], {
      cwd: sandbox.dir,
      env,
      input: 'some text',
    });
    expectUsageError(result);
    expect(result.stderr).toContain('standard input can be read only once');
  });

  it('prints the stack trace only with --debug', async () => {
    const result = await run(['--context', 'missing.txt', '--debug']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});

describe('rlm run trajectory directory', () => {
  it('explains a trajectory directory that cannot be created, before the run starts', async () => {
    writeFileSync(join(sandbox.dir, 'file.txt'), 'x');
    const result = await runCliInProcess(
      ['run', 'q', '--model', 'testkit:needle-finder', '--trajectory-dir', 'file.txt/traj'],
      { cwd: sandbox.dir, env },
    );
    expectUsageError(result);
    expect(result.stderr).toBe(
      `rlm: Cannot write trajectories to ${join(sandbox.dir, 'file.txt/traj')} (ENOTDIR); pass --trajectory-dir or set RLM_TRAJECTORY_DIR to a writable directory.\n`,
    );
  });
});
