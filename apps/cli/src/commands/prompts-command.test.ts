import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

describe('rlm prompts show', () => {
  it('prints the prompt, then a report whose sections follow depth and mode', async () => {
    const result = await runCliInProcess(
      ['prompts', 'show', '--max-depth', '3', '--mode', 'coordinator'],
      {
        cwd: sandbox.dir,
        env: sandbox.env,
      },
    );
    expect(result.code).toBe(0);
    const report = result.stdout.slice(
      result.stdout.lastIndexOf('system prompt: depth 0 of max 3'),
    );
    expect(report).toMatch(
      /^system prompt: depth 0 of max 3, mode coordinator · version [0-9a-f]+/,
    );
    expect(report).toMatch(/^\s+delegation\s+\d+/m);
    expect(report).toMatch(/^\s+coordinator-workflow\s+\d+/m);
    expect(result.stdout.indexOf('system prompt: depth')).toBeGreaterThan(100);
  });

  it('leaves delegation out where children could not have a REPL', async () => {
    const result = await runCliInProcess(['prompts', 'show', '--report-only'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^system prompt: depth 0 of max 1, mode solver/);
    expect(result.stdout).not.toMatch(/^\s+delegation\s/m);
  });

  it('explains an unreadable driver file', async () => {
    const result = await runCliInProcess(['prompts', 'show', '--driver', 'missing.md'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Cannot read driver file');
    expect(result.stderr).toContain('built-in driver name');
  });
});

describe('rlm prompts show errors', () => {
  it('explains a bad --depth in one sentence, exit 2', async () => {
    const result = await runCliInProcess(['prompts', 'show', '--depth', 'x'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(result).toMatchObject({
      code: 2,
      stderr: 'rlm: --depth must be a whole number from 0 (the root), got x.\n',
    });
  });
});
