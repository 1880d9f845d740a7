import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import { SpareWorkers } from './spare-worker.js';

const run = promisify(execFile);

describe('SpareWorkers', () => {
  it('hands out the warmed spare, keeps at most one, and starts fresh workers when none waits', async () => {
    const spares = new SpareWorkers();
    expect(spares.hasSpare).toBe(false);
    const fresh = spares.take();
    expect(spares.hasSpare).toBe(false);
    spares.warm();
    expect(spares.hasSpare).toBe(true);
    const before = spares.take();
    spares.warm();
    spares.warm();
    const spare = spares.take();
    expect(spares.hasSpare).toBe(false);
    const another = spares.take();
    spares.warm();
    await spares.close();
    expect(spares.hasSpare).toBe(false);
    const ids = [fresh, before, spare, another].map((worker) => worker.threadId);
    expect(new Set(ids).size).toBe(4);
    await Promise.all([fresh, before, spare, another].map((worker) => worker.terminate()));
  });

  it('serves many worker sandboxes in a row, each with its own state', async () => {
    for (let i = 0; i < 3; i++) {
      const sandbox = await createSandbox({ isolation: 'worker', context: `run ${i}` });
      const result = await sandbox.execute(
        'var seen = typeof mark; var mark = 1; var copy = context;',
      );
      expect(result.error).toBeNull();
      expect(await sandbox.getVariable('seen')).toBe('undefined');
      expect(await sandbox.getVariable('copy')).toBe(`run ${i}`);
      await sandbox.dispose();
    }
  });

  it('never keeps the process alive: a program that used a worker sandbox exits by itself', async () => {
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const program = `
      const { createSandbox } = await import(${JSON.stringify(entry)});
      const sandbox = await createSandbox({ isolation: 'worker' });
      const result = await sandbox.execute('1 + 1');
      await sandbox.dispose();
      console.log(JSON.stringify(result.error ?? null));
    `;
    const dir = await mkdtemp(join(tmpdir(), 'rlm-spare-'));
    try {
      const file = join(dir, 'program.mjs');
      await writeFile(file, program);
      // A spare left ref'd would keep this child running until the generous timeout kills it.
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
      expect(stdout.trim()).toBe('null');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
