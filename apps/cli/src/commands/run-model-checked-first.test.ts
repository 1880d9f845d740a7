import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

function run(args: string[]) {
  return runCliInProcess(['run', 'What is in it?', ...args], {
    cwd: sandbox.dir,
    env: sandbox.env,
  });
}

describe('rlm run checks the model before reading any context', () => {
  it('names an unknown provider, not the context path that does not exist', async () => {
    const result = await run(['--model', 'nosuch/model-1', '--context', 'missing.txt']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nosuch/model-1');
    expect(result.stderr).not.toContain('missing.txt');
  });

  it('names an unknown offline policy, not the context path that does not exist', async () => {
    const result = await run(['--model', 'testkit:no-such-policy', '--context', 'missing.txt']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no-such-policy');
    expect(result.stderr).not.toContain('missing.txt');
  });

  it('reports a missing key before reading (or reporting) the context', async () => {
    writeFileSync(join(sandbox.dir, 'big.txt'), 'line of text\n'.repeat(100_000));
    const result = await run(['--model', 'anthropic/claude-sonnet-4-5', '--context', 'big.txt']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
    expect(result.stderr).not.toContain('context ←');
    expect(result.stderr).not.toContain('big.txt');
  });
});
