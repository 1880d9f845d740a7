import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdLockFile } from './hold-lock-file.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'rlm-lock-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('holdLockFile', () => {
  it('refuses a second holder with server.conflict naming the first, until the first releases', async () => {
    const path = join(directory, 'rlm-server.lock');
    const what = `the data directory ${directory}`;
    const first = await holdLockFile(path, { what, now: () => new Date('2026-01-02T03:04:05Z') });
    const refused = await holdLockFile(path, { what }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(RlmError.is(refused, 'server.conflict')).toBe(true);
    expect((refused as Error).message).toContain(
      `The data directory ${directory} is in use by rlm-server pid ${process.pid} on host ${hostname()}, started 2026-01-02T03:04:05.000Z`,
    );
    first.release();
    const next = await holdLockFile(path, { what });
    expect(next.holder.pid).toBe(process.pid);
    next.release();
  });
});
