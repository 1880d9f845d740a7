import type { TrajectoryRecord } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { expandTrajectory } from './expand-trajectory.js';
import { groupedLines, groupLines } from './line-group.js';
import { parseTrajectory, safeParseTrajectoryLines } from './read-trajectory.js';
import { subCallRecords } from './testing/sub-call-records.js';
import { TrajectoryPacker } from './trajectory-packer.js';

const context = Array.from({ length: 2_000 }, (_, line) => `record ${line} about billing`).join(
  '\n',
);

const subCall = (call: number, prompt: string): TrajectoryRecord[] =>
  subCallRecords({ call, prompt, at: 5, inputTokens: 9, ended: true });

describe('groups of lines', () => {
  const records = Array.from({ length: 60 }, (_, call) =>
    subCall(call + 1, `Label these:\n${context.slice(call * 400, call * 400 + 390)}`),
  ).flat();
  const packer = new TrajectoryPacker({ payloads: [context] });
  const lines = records.map((record) => JSON.stringify(packer.pack(record)));

  it('hold their lines compressed and give them back in order', () => {
    const group = groupLines(lines);
    expect(group).toMatchObject({ kind: 'group', lines: lines.length });
    expect(JSON.stringify(group).length).toBeLessThan(lines.join('\n').length / 4);
    expect(groupedLines(group, 'record 1')).toEqual(lines);
  });

  it('read back as the records they hold, between ungrouped lines', () => {
    const text = [
      lines[0],
      JSON.stringify(groupLines(lines.slice(1, 100))),
      JSON.stringify(groupLines(lines.slice(100))),
    ].join('\n');
    expect(parseTrajectory(`${text}\n`, { payloads: [context] })).toEqual(records);
  });

  it('are refused, naming the group, when their data is damaged or miscounted', () => {
    const group = groupLines(lines.slice(0, 10));
    expect(() => expandTrajectory([{ ...group, data: 'AAAA' }])).toThrow(
      expect.objectContaining({
        code: 'protocol.invalid_message',
        message: expect.stringContaining('record 1: its data does not decompress'),
      }),
    );
    expect(() => expandTrajectory([{ ...group, lines: 11 }])).toThrow(
      expect.objectContaining({ message: expect.stringContaining('says 11 lines and holds 10') }),
    );
    const bad = groupLines([lines[0] ?? '', '{"kind":"event","event":{}}']);
    expect(() => expandTrajectory([bad], { payloads: [context] })).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('record 1, line 2 of its group'),
      }),
    );
  });

  it('are lines of the format, and a group inside a group is not', () => {
    const group = JSON.stringify(groupLines(lines.slice(0, 3)));
    expect(safeParseTrajectoryLines(`${group}\n`).ok).toBe(true);
    const nested = groupLines([group]);
    expect(() => expandTrajectory([nested])).toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
  });
});
