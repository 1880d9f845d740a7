import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replay } from '@rlm/executor';
import { startFakeAnthropic } from '@rlm/testkit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { generateSniah } from '../generators/generate-sniah.js';
import { referencePolicy } from '../offline/reference-policy.js';
import { createModelResolver } from './model-resolver.js';
import { runEval } from './run-eval.js';

/** A fresh temporary directory, removed when the test ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('an eval through the fake Anthropic server', () => {
  it('runs both systems over HTTP and records trajectories that replay to the same answer', async () => {
    const [task] = generateSniah({ size: 6_000, seed: 8 });
    if (task === undefined) throw new Error('no task');
    await using server = await startFakeAnthropic({ script: referencePolicy(task) });
    const model = 'anthropic/claude-sonnet-5-5';
    const run = await runEval({
      tasks: [task],
      systems: [
        { name: 'rlm', kind: 'rlm', model, maxIterations: 4 },
        { name: 'base', kind: 'base', model },
      ],
      outDir: await tempDir('eval-http-'),
      resolveModel: createModelResolver({
        env: { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
      }),
    });
    expect(run.rows.map((row) => [row.system, row.passed, row.status])).toEqual([
      ['rlm', true, 'completed'],
      ['base', true, 'completed'],
    ]);
    expect(server.requests.length).toBeGreaterThan(2);

    const rlm = run.rows.find((row) => row.system === 'rlm');
    const replayed = await replay(rlm?.trajectoryPath ?? '', { context: task.context ?? '' });
    expect(replayed.result.answer).toBe(rlm?.answer);
  }, 60_000);
});
