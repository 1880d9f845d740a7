import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { needleHaystack } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

describe('the resume hint', () => {
  const task = needleHaystack({ chars: 5_000, seed: 8 });
  const run = (flags: readonly string[]) => {
    writeFileSync(join(sandbox.dir, 'context.txt'), task.context);
    return runCliInProcess(
      [
        'run',
        task.query,
        '-c',
        'context.txt',
        '--model',
        'testkit:needle-finder',
        '--max-subcalls',
        '0',
        ...flags,
      ],
      { cwd: sandbox.dir, env: sandbox.env },
    );
  };

  it('is given for a budget-stopped solver run, which rlm resume can continue', async () => {
    const result = await run([]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('rlm resume');
  });

  it('is not given for a coordinator run, which keeps no checkpoint', async () => {
    const result = await run(['--mode', 'coordinator']);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('budget');
    expect(result.stderr).not.toContain('rlm resume');
  });
});
