import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { totalUsage, type UsageSummary } from '@rlm/protocol';
import { needleHaystack } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

describe('rlm run with --input-price and --output-price', () => {
  it('bills an offline model at the given price (it costs nothing without one)', async () => {
    const task = needleHaystack({ chars: 4_000, seed: 5 });
    writeFileSync(join(sandbox.dir, 'context.txt'), task.context);
    const run = (flags: readonly string[]) =>
      runCliInProcess(
        [
          'run',
          task.query,
          '-c',
          'context.txt',
          '--model',
          'testkit:needle-finder',
          '--json',
          ...flags,
        ],
        { cwd: sandbox.dir, env: sandbox.env },
      );
    const cost = (stdout: string) =>
      totalUsage((JSON.parse(stdout) as { usage: UsageSummary }).usage).costUsd;
    const free = await run([]);
    expect(cost(free.stdout)).toBe(0);
    const priced = await run(['--input-price', '1', '--output-price', '5']);
    expect(priced.code, priced.stderr).toBe(0);
    expect(cost(priced.stdout)).toBeGreaterThan(0);
  });
});
