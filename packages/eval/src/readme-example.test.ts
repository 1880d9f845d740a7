import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProgress, generateBenchmark, runEval } from './index.js';

describe('the README example', () => {
  it('runs as written (smaller sizes, a temporary directory, progress collected)', async () => {
    const lines: string[] = [];
    const run = await runEval({
      tasks: generateBenchmark('sniah', { sizes: [8_000, 40_000], count: 1 }),
      systems: [
        { name: 'rlm', kind: 'rlm', model: 'testkit:reference' },
        { name: 'base', kind: 'base', model: 'testkit:reference' },
      ],
      outDir: await mkdtemp(join(tmpdir(), 'eval-readme-')),
      onProgress: (progress) => lines.push(formatProgress(progress)),
    });
    expect(run.rows).toHaveLength(4);
    expect(run.stoppedBy).toBeNull();
    expect(lines.at(-1)).toMatch(/^\[#{24}\] {2}4\/4 {2}100%/);
  }, 60_000);
});
