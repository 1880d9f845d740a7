import { TRAJECTORY_VERSION, trajectoryRecordSchema } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { recording } from './testing/recorded-runs.js';
import {
  findTrajectoryHeader,
  trajectoryHeader,
  trajectoryReplLanguage,
} from './trajectory-header.js';

describe('trajectoryHeader', () => {
  it('stamps the format version and a valid ISO date on a schema-valid header', () => {
    const header = trajectoryHeader({ runId: 'r1', createdAt: 0, config: { model: 'm' } });
    expect(header).toEqual({
      kind: 'header',
      version: TRAJECTORY_VERSION,
      runId: 'r1',
      createdAt: '1970-01-01T00:00:00.000Z',
      config: { model: 'm' },
    });
    expect(trajectoryRecordSchema.parse(header)).toEqual(header);
  });

  it('is found first in a recorded trajectory', () => {
    // The recordings are format 1, kept so files written before format 2 stay read.
    expect(findTrajectoryHeader(recording('simple-run'))).toMatchObject({
      runId: 'simple-run-root',
      version: 1,
    });
    expect(findTrajectoryHeader([])).toBeUndefined();
  });

  it('records the REPL language when given, and reads JavaScript from a header without one', () => {
    const python = trajectoryHeader({ runId: 'r1', createdAt: 0, config: {}, repl: 'python' });
    expect(trajectoryRecordSchema.parse(python)).toMatchObject({ repl: 'python' });
    expect(trajectoryReplLanguage([python])).toBe('python');
    expect(trajectoryReplLanguage(recording('simple-run'))).toBe('javascript');
    expect(trajectoryReplLanguage([])).toBe('javascript');
  });

  it('reads the language from the root run-start when the header has none', () => {
    const records = recording('simple-run').map((record) =>
      record.kind === 'event' && record.event.type === 'run-start'
        ? { ...record, event: { ...record.event, repl: 'python' as const } }
        : record,
    );
    expect(trajectoryReplLanguage(records)).toBe('python');
  });

  it('refuses a header naming a language no REPL runs', () => {
    const header = { ...trajectoryHeader({ runId: 'r1', createdAt: 0, config: {} }), repl: 'ruby' };
    expect(trajectoryRecordSchema.safeParse(header).success).toBe(false);
  });
});
