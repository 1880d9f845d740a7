import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadContext } from './load-context.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-load-context-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = (name: string) => ({ path: join(dir, name), label: name });

describe('loadContext checks a file before it reads it', () => {
  it('refuses a sparse 1.5 GB file as too large without reading it into memory', async () => {
    const path = join(dir, 'huge.txt');
    // Text at the start (it is not skipped as binary), then a hole: nothing is written to disk.
    await writeFile(path, 'line of text\n'.repeat(1_000));
    await truncate(path, 1.5 * 1024 ** 3);
    const before = process.memoryUsage().rss;
    const refused = await loadContext({ files: [file('huge.txt')] }).catch((error) => error);
    const grown = process.memoryUsage().rss - before;
    expect(RlmError.is(refused, 'mcp.context_too_large')).toBe(true);
    expect((refused as RlmError<'mcp.context_too_large'>).details.bytes).toBe(1.5 * 1024 ** 3);
    // A read of the whole file would add 1.5 GB; the refusal reads one chunk at most.
    expect(grown).toBeLessThan(300 * 1024 ** 2);
  });

  it('refuses a FIFO without blocking, several at once, and reads a file after them', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    // Node has four file-I/O threads by default: blocking reads of a FIFO would hold them all.
    const refusals = await Promise.all(
      Array.from({ length: 6 }, () =>
        loadContext({ files: [file('pipe')] }).catch((error: unknown) => error),
      ),
    );
    for (const refused of refusals) {
      expect(RlmError.is(refused, 'mcp.context_unreadable')).toBe(true);
      expect((refused as RlmError<'mcp.context_unreadable'>).details.reason).toBe('fifo');
      expect((refused as Error).message).toContain('named pipe');
    }
    await writeFile(join(dir, 'after.txt'), 'still readable');
    expect((await loadContext({ files: [file('after.txt')] })).text).toBe('still readable');
  });

  it('refuses a directory and a device as not regular files', async () => {
    await mkdir(join(dir, 'sub'));
    const directory = await loadContext({ files: [file('sub')] }).catch((error) => error);
    expect((directory as RlmError<'mcp.context_unreadable'>).details.reason).toBe('directory');
    const device = await loadContext({
      files: [{ path: '/dev/zero', label: 'zero' }],
    }).catch((error) => error);
    expect((device as RlmError<'mcp.context_unreadable'>).details.reason).toBe('device');
  });
});
