import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { formatProgress, generateBenchmark, runEval } from './index.js';

/** A fresh temporary directory, removed when the test ends. */
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('the README example', () => {
  it('runs as written (smaller sizes, a temporary directory, progress collected)', async () => {
    const lines: string[] = [];
    const run = await runEval({
      tasks: generateBenchmark('sniah', { sizes: [8_000, 40_000], count: 1 }),
      systems: [
        { name: 'rlm', kind: 'rlm', model: 'testkit:reference' },
        { name: 'base', kind: 'base', model: 'testkit:reference' },
      ],
      outDir: await tempDir('eval-readme-'),
      onProgress: (progress) => lines.push(formatProgress(progress)),
    });
    expect(run.rows).toHaveLength(4);
    expect(run.stoppedBy).toBeNull();
    expect(lines.at(-1)).toMatch(/^\[#{24}\] {2}4\/4 {2}100%/);
  }, 60_000);
});
