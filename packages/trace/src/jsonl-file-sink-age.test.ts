import * as fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrajectoryRecord } from '@rlm/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GROUP_MAX_MS, jsonlFileSink } from './jsonl-file-sink.js';
import { readTrajectory } from './read-trajectory.js';

/** Writes fail (as on a full disk) while `on`. */
const full = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    writeSync: (...args: Parameters<typeof actual.writeSync>) => {
      if (full.on) {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
        });
      }
      return actual.writeSync(...args);
    },
  };
});

const base = { v: 1 as const, runId: 'r', parentRunId: null, rootRunId: 'r', depth: 0, at: 1 };
const start = (call: number): TrajectoryRecord => ({
  kind: 'event',
  event: {
    ...base,
    type: 'subcall-start',
    callId: `r:${call}`,
    kind: 'llm',
    model: 'm',
    promptPreview: `prompt ${call}`,
  },
});
const end = (call: number): TrajectoryRecord => ({
  kind: 'event',
  event: {
    ...base,
    type: 'subcall-end',
    callId: `r:${call}`,
    kind: 'llm',
    ok: true,
    durationMs: 1,
    responsePreview: 'x',
  },
});
/** A record that is not a sub-call's: it is written at once, after any open group. */
const otherRecord: TrajectoryRecord = {
  kind: 'event',
  event: { ...base, type: 'iteration-start', iteration: 2 },
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-group-age-'));
  vi.useFakeTimers();
  full.on = false;
});
afterEach(async () => {
  vi.useRealTimers();
  full.on = false;
  await rm(dir, { recursive: true, force: true });
});

function sinkWith(...records: TrajectoryRecord[]) {
  const sink = jsonlFileSink(dir, 'run-age');
  for (const record of records) sink.writeLine?.(record, record);
  return sink;
}

describe('jsonlFileSink group age', () => {
  it('writes an open group once it is GROUP_MAX_MS old, though no record comes', async () => {
    const sink = sinkWith(start(1), start(2));
    await vi.advanceTimersByTimeAsync(GROUP_MAX_MS - 1);
    expect(fs.readFileSync(sink.path!, 'utf8')).toBe('');
    await vi.advanceTimersByTimeAsync(1);
    expect(await readTrajectory(sink.path!)).toEqual([start(1), start(2)]);
    expect(vi.getTimerCount()).toBe(0);

    // The next lines open a new group, written in order after the first.
    sink.writeLine?.(end(1), end(1));
    sink.writeLine?.(end(2), end(2));
    await sink.close();
    expect(await readTrajectory(sink.path!)).toEqual([start(1), start(2), end(1), end(2)]);
  });

  it('leaves no timer once a group is written by another record or by close, and writes nothing after close', async () => {
    const sink = sinkWith(start(1));
    expect(vi.getTimerCount()).toBe(1);
    sink.writeLine?.(otherRecord, otherRecord);
    expect(vi.getTimerCount()).toBe(0);
    sink.writeLine?.(start(2), start(2));
    expect(vi.getTimerCount()).toBe(1);
    await sink.close();
    expect(vi.getTimerCount()).toBe(0);
    const written = await readFile(sink.path!, 'utf8');
    await vi.advanceTimersByTimeAsync(3 * GROUP_MAX_MS);
    sink.writeLine?.(start(3), start(3));
    await vi.advanceTimersByTimeAsync(3 * GROUP_MAX_MS);
    expect(await readFile(sink.path!, 'utf8')).toBe(written);
    expect(await readTrajectory(sink.path!)).toEqual([start(1), otherRecord, start(2)]);
  });

  it('throws a failed timed write from its next call and writes nothing after it', async () => {
    const sink = sinkWith(start(1));
    full.on = true;
    await vi.advanceTimersByTimeAsync(GROUP_MAX_MS);
    full.on = false;
    expect(() => sink.writeLine?.(end(1), end(1))).toThrow(/ENOSPC/);
    // Later lines would refer to the lost ones: the file stays the prefix it was.
    sink.writeLine?.(otherRecord, otherRecord);
    sink.write(otherRecord);
    await sink.close();
    expect(await readFile(sink.path!, 'utf8')).toBe('');
  });

  it('throws a failed timed write from close when no other call comes', async () => {
    const sink = sinkWith(start(1));
    full.on = true;
    await vi.advanceTimersByTimeAsync(GROUP_MAX_MS);
    full.on = false;
    await expect(sink.close()).rejects.toThrow(/ENOSPC/);
    expect(await readFile(sink.path!, 'utf8')).toBe('');
  });

  it('writes nothing after a write that failed at once', async () => {
    const sink = sinkWith(otherRecord);
    full.on = true;
    expect(() => sink.writeLine?.(otherRecord, otherRecord)).toThrow(/ENOSPC/);
    full.on = false;
    sink.writeLine?.(start(1), start(1));
    await sink.close();
    expect(await readTrajectory(sink.path!)).toEqual([otherRecord]);
  });
});
