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
  it('starts a spare only after the first hand-out and replaces it on every take', async () => {
    const spares = new SpareWorkers();
    expect(spares.hasSpare).toBe(false);
    const first = spares.take();
    expect(spares.hasSpare).toBe(true);
    const second = spares.take();
    expect(spares.hasSpare).toBe(true);
    expect(second.threadId).not.toBe(first.threadId);
    await Promise.all([first.terminate(), second.terminate(), spares.close()]);
    expect(spares.hasSpare).toBe(false);
  });

  it('forgets a spare that exits while idle and still hands out a working worker', async () => {
    const spares = new SpareWorkers();
    await spares.take().terminate();
    expect(spares.hasSpare).toBe(true);
    // close() terminates the idle spare the way a crash would end it.
    await spares.close();
    expect(spares.hasSpare).toBe(false);
    const worker = spares.take();
    const online = new Promise((resolve) => worker.once('online', resolve));
    await expect(online).resolves.toBeUndefined();
    await Promise.all([worker.terminate(), spares.close()]);
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
