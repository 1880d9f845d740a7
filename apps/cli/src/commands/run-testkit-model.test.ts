import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  const filler = Array.from({ length: 2000 }, (_, line) => `line ${line}: nothing to see`).join(
    '\n',
  );
  writeFileSync(
    join(sandbox.dir, 'haystack.txt'),
    `${filler}\nthe magic number is 90210\n${filler}\n`,
  );
});
afterEach(() => sandbox.dispose());

const cli = (args: string[]) => spawnCli(args, { cwd: sandbox.dir, env: sandbox.env });

describe('offline testkit models', () => {
  it('finds the needle with --model testkit:needle-finder and no key or server', async () => {
    const result = await cli([
      'run',
      'What is the magic number?',
      '-c',
      'haystack.txt',
      '--model',
      'testkit:needle-finder',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('90210\n');
    expect(result.stderr).toContain('llm_query → testkit/needle-finder');
  });

  it('shows child runs at depth 1 in progress and in the trace', async () => {
    const result = await cli([
      'run',
      'What is the magic number?',
      '-c',
      'haystack.txt',
      '--model',
      'testkit:delegate-to-child',
      '--max-depth',
      '2',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const { answer, trajectoryPath } = JSON.parse(result.stdout) as {
      answer: string;
      trajectoryPath: string;
    };
    expect(answer).toBe('90210');
    expect(result.stderr).toMatch(/\[depth 1\] run \S+ started/);
    const trace = await cli(['trace', trajectoryPath]);
    expect(trace.stdout).toMatch(/^ {4}↳ rlm_query depth 1 testkit\/delegate-to-child ✓/m);
    expect(trace.stdout).toMatch(/^ {6}turn 1/m);
  });

  it('names the known policies for an unknown one, exit 2', async () => {
    const result = await cli(['run', 'q', '--model', 'testkit:oracle']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Unknown testkit policy "oracle" (known: needle-finder, chunk-and-aggregate, delegate-to-child)',
    );
  });
});
