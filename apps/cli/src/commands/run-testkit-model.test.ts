import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateBenchmark, OFFLINE_POLICIES, type OfflinePolicyName } from '@rlm/eval';
import { labelledRecords } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

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

const cli = (args: string[]) => runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });

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
    expect(result.stderr).toMatch(/^turn 2 done in \S+: .*\d+ llm_query → testkit\/needle-finder/m);
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
    expect(result.stderr).toMatch(
      /^turn 2 done in \S+: .*2 rlm_query → testkit\/delegate-to-child/m,
    );
    const trace = await cli(['trace', trajectoryPath]);
    expect(trace.stdout).toMatch(/^ {4}↳ rlm_query depth 1 testkit\/delegate-to-child ✓/m);
    expect(trace.stdout).toMatch(/^ {6}turn 1/m);
  });

  it('raises the default depth to 2 for --mode coordinator and says so; refuses a set depth of 1', async () => {
    const args = ['run', 'Magic number?', '-c', 'haystack.txt', '--model', 'testkit:needle-finder'];
    const raised = await cli([...args, '--mode', 'coordinator', '--json']);
    expect(raised.code, raised.stderr).toBe(0);
    expect(raised.stderr).toContain(
      'rlm: --mode coordinator runs at max depth 2 (its root delegates to children with a REPL); pass --max-depth to choose another.',
    );
    expect(JSON.parse(raised.stdout)).toMatchObject({ answer: '90210' });
    const refused = await cli([...args, '--mode', 'coordinator', '--max-depth', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'rlm: --mode coordinator needs --max-depth 2 or more (its root delegates to children with a REPL), but the max depth is 1 (from flag --max-depth)',
    );
  });

  it('names the known policies for an unknown one, exit 2', async () => {
    const result = await cli(['run', 'q', '--model', 'testkit:oracle']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Unknown offline model "testkit:oracle"; expected one of testkit:reference, testkit:needle-finder, testkit:needle-finder-grep, testkit:chunk-and-aggregate, testkit:delegate-to-child',
    );
  });

  it('runs every policy rlm eval accepts', async () => {
    const [sniah] = generateBenchmark('sniah', { sizes: [8_000], count: 1, seed: 2 });
    writeFileSync(join(sandbox.dir, 'sniah.txt'), String(sniah?.context));
    const records = labelledRecords({ count: 30, seed: 4 });
    writeFileSync(join(sandbox.dir, 'records.txt'), records.context);
    const cases: Record<OfflinePolicyName, { query: string; context: string; answer: string }> = {
      reference: { query: sniah?.query ?? '', context: 'sniah.txt', answer: sniah?.answer ?? '' },
      needleFinder: {
        query: 'What is the magic number?',
        context: 'haystack.txt',
        answer: '90210',
      },
      needleFinderGrep: {
        query: 'What is the magic number?',
        context: 'haystack.txt',
        answer: '90210',
      },
      delegateToChild: { query: 'Magic number?', context: 'haystack.txt', answer: '90210' },
      chunkAndAggregate: {
        query: 'Count the records per label.',
        context: 'records.txt',
        answer: JSON.stringify(records.counts),
      },
    };
    for (const name of OFFLINE_POLICIES) {
      const { query, context, answer } = cases[name];
      const result = await cli(['run', query, '-c', context, '--model', `testkit:${name}`, '-q']);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      const got = result.stdout.trim();
      expect(name === 'chunkAndAggregate' ? JSON.parse(got) : got, name).toEqual(
        name === 'chunkAndAggregate' ? JSON.parse(answer) : answer,
      );
    }
  });

  it('finds the needle in directory and glob contexts', async () => {
    mkdirSync(join(sandbox.dir, 'docs', 'deep'), { recursive: true });
    writeFileSync(join(sandbox.dir, 'docs', 'a.md'), 'nothing here\n');
    writeFileSync(join(sandbox.dir, 'docs', 'deep', 'b.md'), 'the magic number is 31337\n');
    for (const context of ['docs', 'docs/**/*.md']) {
      const result = await cli([
        'run',
        'Magic number?',
        '-c',
        context,
        '--model',
        'testkit:needle-finder',
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('31337\n');
    }
  });
});
