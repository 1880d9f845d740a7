import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseTrajectory,
  readTrajectory,
  safeParseTrajectory,
  trajectoryEvents,
} from './read-trajectory.js';
import { recordingPath, recordingText } from './testing/recorded-runs.js';

describe('reading trajectories', () => {
  it('reads every record of a recorded run and its events in order', async () => {
    const records = await readTrajectory(recordingPath('simple-run'));
    expect(records[0]?.kind).toBe('header');
    const events = trajectoryEvents(records);
    expect(events[0]?.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'completed' });
  });

  it('reads a file cut short by a crash as the records before the cut', async () => {
    const text = recordingText('simple-run');
    const cut = text.slice(0, text.length - 40);
    const whole = text.trim().split('\n').length;
    expect(safeParseTrajectory(cut)).toMatchObject({ ok: true, truncated: true });
    expect(parseTrajectory(cut)).toHaveLength(whole - 1);
    const dir = await mkdtemp(join(tmpdir(), 'rlm-trace-'));
    await writeFile(join(dir, 'cut.jsonl'), cut);
    expect(await readTrajectory(join(dir, 'cut.jsonl'))).toHaveLength(whole - 1);
  });

  it('refuses a line that is not a trajectory record, naming the file and line', async () => {
    expect(() => parseTrajectory('{"kind":"nope"}\n{}\n')).toThrow(
      expect.objectContaining({
        code: 'protocol.invalid_message',
        message: expect.stringMatching(/^Invalid trajectory at line 1: /),
      }),
    );
    const dir = await mkdtemp(join(tmpdir(), 'rlm-trace-'));
    await writeFile(join(dir, 'bad.jsonl'), '{"kind":"header"}\n');
    await expect(readTrajectory(join(dir, 'bad.jsonl'))).rejects.toMatchObject({
      code: 'protocol.invalid_message',
      message: expect.stringContaining(`trajectory ${join(dir, 'bad.jsonl')} at line 1`),
    });
  });
});
