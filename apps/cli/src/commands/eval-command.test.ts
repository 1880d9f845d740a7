import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

describe('rlm eval', () => {
  it('forwards to @rlm/eval and writes its report', async () => {
    const result = await spawnCli(
      [
        'eval',
        '--benchmark',
        'sniah',
        '--sizes',
        '8k',
        '--model',
        'testkit:needleFinder',
        '--out',
        'ev',
      ],
      { cwd: sandbox.dir, env: sandbox.env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# Eval report/);
    expect(existsSync(join(sandbox.dir, 'ev', 'report.md'))).toBe(true);
    expect(
      readFileSync(join(sandbox.dir, 'ev', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n').length,
    ).toBeGreaterThan(0);
  });

  it('passes usage errors through with exit code 2', async () => {
    const result = await spawnCli(['eval', '--bogus'], { cwd: sandbox.dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('rlm eval: --bogus is not a known option');
  });
});
