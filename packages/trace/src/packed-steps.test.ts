import type { TrajectoryRecord } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { expandTrajectory } from './expand-trajectory.js';
import type { PackedLine, SingleTrajectoryLine } from './stored-line.js';
import { subCallRecords } from './testing/sub-call-records.js';
import { TrajectoryPacker } from './trajectory-packer.js';

const context = Array.from({ length: 3_000 }, (_, line) => `record ${line} about billing`).join(
  '\n',
);

/** A sub-call's start and exchange, at `at`, its prompt the `index`th chunk of 400 characters. */
function subCall(call: number, { at, index }: { at: number; index: number }): TrajectoryRecord[] {
  const prompt = `Label these:\n${context.slice(index * 400, index * 400 + 400)}`;
  return subCallRecords({
    call,
    prompt,
    at,
    inputTokens: 90 + call,
    costUsd: call / 10,
    ended: false,
  });
}

const packed = (line: SingleTrajectoryLine): PackedLine => {
  if (line.kind !== 'packed') throw new Error(`expected a packed line, got ${line.kind}`);
  return line;
};

/** Lines as a file holds them (JSON text and back). */
const asWritten = <T>(lines: T[]): T[] => JSON.parse(JSON.stringify(lines));

describe('format 4 steps', () => {
  const records = Array.from({ length: 20 }, (_, i) =>
    subCall(i + 3, { at: 1_700_000_000_000 + 7 * i, index: i }),
  ).flat();

  it('writes call numbers, changed integers and slice offsets as steps, and reads back the same records', () => {
    const packer = new TrajectoryPacker({ payloads: [context] });
    const lines = records.map((record) => packer.pack(record));
    const [firstStart, firstExchange, secondStart, secondExchange] = lines.map(packed);
    expect(firstStart).toMatchObject({ call: 3 });
    expect(firstExchange?.strings?.[0]?.parts[1]).toMatchObject({ context: 0, offset: 0 });
    expect(secondStart).toMatchObject({ callDelta: 1, add: { event: { at: 7 } } });
    expect(secondStart?.call).toBeUndefined();
    expect(secondStart?.record).toEqual({ event: { promptPreview: expect.any(String) } });
    expect(secondExchange).toMatchObject({
      callDelta: 1,
      add: { response: { usage: { inputTokens: 1 } } },
      // A fraction is not a step: it is written as it is.
      record: { response: { costUsd: 0.4 } },
    });
    // Each chunk starts right where the previous one ended, past the prompt's own text.
    expect(secondExchange?.strings?.[0]?.parts[1]).toEqual({ context: 0, gap: 0, length: 400 });
    expect(expandTrajectory(asWritten(lines), { payloads: [context] })).toEqual(records);
    // Without the context the slices are notes naming where they are.
    const notes = expandTrajectory(asWritten(lines));
    expect(JSON.stringify(notes[3])).toContain('[400 chars of context');
    expect(JSON.stringify(notes[3])).toContain('from offset 400:');
  });

  it('reads a file continued by a second packer (a resumed run) as one', () => {
    const first = new TrajectoryPacker({ payloads: [context] });
    const second = new TrajectoryPacker({ payloads: [context] });
    const half = records.length / 2;
    const lines = [
      ...records.slice(0, half).map((record) => first.pack(record)),
      ...records.slice(half).map((record) => second.pack(record)),
    ];
    // The second packer's first lines are whole: nothing it refers to is the first one's.
    expect(packed(lines[half] as SingleTrajectoryLine)).toMatchObject({ call: 3 + half / 2 });
    expect(expandTrajectory(asWritten(lines), { payloads: [context] })).toEqual(records);
  });

  it('refuses steps with nothing to step from', () => {
    const packer = new TrajectoryPacker({ payloads: [context] });
    const lines = asWritten(records.slice(0, 4).map((record) => packed(packer.pack(record)))) as [
      PackedLine,
      PackedLine,
      PackedLine,
      PackedLine & { strings: NonNullable<PackedLine['strings']> },
    ];
    const invalid = (bad: unknown[], message: string) =>
      expect(() => expandTrajectory(bad as never, { payloads: [context] })).toThrow(
        expect.objectContaining({
          code: 'protocol.invalid_message',
          message: expect.stringContaining(message),
        }),
      );
    // The second start without the first: its call, time and everything else have no base.
    invalid([lines[1], lines[2]], 'none came before');
    const alone = { ...lines[3], of: undefined, callDelta: undefined, call: 4 };
    invalid([{ ...alone, contexts: lines[1].contexts }], 'follows no earlier slice');
    invalid([lines[0], { ...lines[2], callDelta: 1, call: 4 }], 'both call and callDelta');
    invalid(
      [lines[0], { ...lines[2], add: { event: { model: 1 } } }],
      'add.event.model has no integer',
    );
    invalid([{ ...lines[0], add: { event: { at: 1 } } }], 'add without of');
    invalid([lines[0], { ...lines[2], callDelta: -10 }], 'makes call -7');
    const [prompt] = lines[3].strings;
    const before = {
      ...lines[3],
      strings: [{ ...prompt, parts: [prompt?.parts[0], { context: 0, gap: -5_000, length: 400 }] }],
    };
    invalid([lines[0], lines[1], lines[2], before], 'before its context');
  });
});
