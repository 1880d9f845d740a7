import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { labelledRecords, policies, startFakeOpenAI } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  const task = labelledRecords({ count: 30, seed: 4 });
  writeFileSync(join(sandbox.dir, 'records.txt'), task.context);
});
afterEach(() => sandbox.dispose());

interface Completion {
  answer: string;
  usage: { models: Record<string, { calls: number; cachedCalls?: number }> };
}

describe('rlm run --cache and rlm cache', () => {
  it('shares cached sub-call answers between two processes on one data dir, and rlm cache shows and clears them', async () => {
    await using server = await startFakeOpenAI({
      flavor: 'vllm',
      requireAuth: false,
      script: policies.chunkAndAggregate(),
    });
    const args = [
      'run',
      'How many records are about billing?',
      '-c',
      'records.txt',
      '--model',
      'testkit:chunk-and-aggregate',
      '--sub-model',
      `openai-compatible/qwen3@${server.url}`,
      '--cache',
      '--json',
      '--progress',
      'none',
    ];
    const first = await spawnCli(args, { cwd: sandbox.dir, env: sandbox.env });
    expect(first.code, first.stderr).toBe(0);
    const paid = server.requests.length;
    expect(paid).toBeGreaterThan(0);

    const second = await spawnCli(args, { cwd: sandbox.dir, env: sandbox.env });
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.length).toBe(paid);
    const completion = JSON.parse(second.stdout) as Completion;
    expect(completion.answer).toBe((JSON.parse(first.stdout) as Completion).answer);
    expect(completion.usage.models['openai-compatible/qwen3']).toMatchObject({
      calls: 0,
      cachedCalls: paid,
    });

    const stats = await spawnCli(['cache', 'stats', '--json'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ entries: paid, hits: paid });

    const cleared = await spawnCli(['cache', 'clear'], { cwd: sandbox.dir, env: sandbox.env });
    expect(cleared.stdout).toContain(`Deleted ${paid} cached answers`);
    const third = await spawnCli(args, { cwd: sandbox.dir, env: sandbox.env });
    expect(third.code, third.stderr).toBe(0);
    expect(server.requests.length).toBe(2 * paid);
  });
});
