import { describe, expect, it } from 'vitest';
import { groupedLines } from './line-group.js';
import { readTrajectory, safeParseTrajectoryLines, trajectoryEvents } from './read-trajectory.js';
import { recordingPath, recordingText } from './testing/recorded-runs.js';

/** The context of `format-3-groups.jsonl` (the same formula as `record-format-3.mjs`). */
const context = Array.from({ length: 400 }, (_, line) =>
  `ticket ${line} ${(line * 7919).toString(36)} ${line % 4 === 0 ? 'billing refund' : 'shipping delay'}`.padEnd(
    59,
    '.',
  ),
).join('\n');

describe('a format-3 file written by an earlier build', () => {
  it('is what it says: a version-3 header, a group, slices by offset, no steps', () => {
    const text = recordingText('format-3-groups');
    const result = safeParseTrajectoryLines(text);
    if (!result.ok) throw new Error('the fixture does not parse');
    const lines = result.value;
    expect(lines[0]).toMatchObject({ kind: 'header', version: 3 });
    expect(lines.filter((line) => line.kind === 'group')).toHaveLength(1);
    const all = lines
      .flatMap((line) =>
        line.kind === 'group' ? groupedLines(line, 'the group') : [JSON.stringify(line)],
      )
      .join('\n');
    expect(all).toContain('"offset":');
    expect(all).not.toMatch(/"callDelta"|"gap"|"add"/);
  });

  it('reads every record back with its context: the prompts as they were sent', async () => {
    const records = await readTrajectory(recordingPath('format-3-groups'), { payloads: [context] });
    const events = trajectoryEvents(records);
    expect(events.filter((event) => event.type === 'subcall-start')).toHaveLength(40);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'completed' });
    const lines = context.split('\n');
    const expected = Array.from(
      { length: 40 },
      (_, i) =>
        `Label each ticket below, one label a line:\n${lines.slice(i * 10, i * 10 + 10).join('\n')}`,
    );
    const prompts = records.flatMap((record) =>
      record.kind === 'model-exchange' && record.request.system === undefined
        ? record.request.messages.map((message) => message.content)
        : [],
    );
    expect([...prompts].sort()).toEqual([...expected].sort());
    // Call numbers and times are whole: every sub-call's start and end name the same call.
    const starts = events.flatMap((event) =>
      event.type === 'subcall-start' ? [event.callId] : [],
    );
    const ends = events.flatMap((event) => (event.type === 'subcall-end' ? [event.callId] : []));
    expect(new Set(starts).size).toBe(40);
    expect([...ends].sort()).toEqual([...starts].sort());
    expect(events.every((event) => Number.isSafeInteger(event.at))).toBe(true);
  });

  it('reads without its context, each slice a note naming the context', async () => {
    const records = await readTrajectory(recordingPath('format-3-groups'));
    const text = JSON.stringify(records);
    expect(text).toMatch(/\[\d+ chars of context \(23999 chars, sha256:[0-9a-f]{16}\) from offset/);
  });
});
