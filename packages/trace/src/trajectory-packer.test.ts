import type { JsonValue, TrajectoryRecord } from '@rlm/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandTrajectory } from './expand-trajectory.js';
import { parseTrajectory } from './read-trajectory.js';
import { textHash } from './text-hash.js';
import { TrajectoryPacker } from './trajectory-packer.js';

/** A context with no period, so a slice matches only where it was cut. */
function prose(length: number, seed = 1): string {
  let state = seed;
  let text = '';
  while (text.length < length) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    text += `${(state >>> 8).toString(36)} `;
  }
  return text.slice(0, length);
}

function exchange(callId: string, content: string, system?: string): TrajectoryRecord {
  return {
    kind: 'model-exchange',
    runId: 'r',
    callId,
    request: {
      ...(system === undefined ? {} : { system }),
      messages: [{ role: 'user', content }],
      messagesFrom: 0,
    },
    response: {
      text: 'ok',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      stopReason: 'end_turn',
      model: 'm',
    },
  };
}

function jsonl(lines: readonly unknown[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

function pack(records: readonly TrajectoryRecord[], payloads: readonly JsonValue[]): string {
  const packer = new TrajectoryPacker({ payloads });
  return jsonl(records.map((record) => packer.pack(record)));
}

describe('TrajectoryPacker', () => {
  const context = prose(200_000);

  it('records slices of the context embedded in prompts as references, and reads them back', () => {
    const records = [0, 1, 2, 3].map((i) =>
      exchange(
        `c${i}`,
        `Summarize: ${context.slice(i * 40_000 + 17, (i + 1) * 40_000 + 17)} thanks`,
      ),
    );
    const text = pack(records, [context]);
    expect(text.length).toBeLessThan(2_000);
    expect(text.split('"contexts":')).toHaveLength(2);
    expect(parseTrajectory(text, { payloads: [context] })).toEqual(records);
  });

  it('writes a long repeated text once and refers to it by hash after', () => {
    const system = prose(30_000, 7);
    const records = [exchange('a', 'one', system), exchange('b', 'two', system)];
    const text = pack(records, []);
    expect(text.length).toBeLessThan(system.length + 2_000);
    expect(text.split('"value":')).toHaveLength(2);
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(parseTrajectory(text)).toEqual(records);
  });

  it('finds slices of every string of an array payload', () => {
    const chunks = [prose(5_000, 3), prose(5_000, 4)];
    const records = [exchange('a', `${chunks[1]} and ${chunks[0]!.slice(100)}`)];
    const text = pack(records, ['root', chunks]);
    expect(text.length).toBeLessThan(1_000);
    expect(parseTrajectory(text, { payloads: ['root', chunks] })).toEqual(records);
  });

  it('names the missing context when it is not given, and a changed one when it differs', () => {
    const text = pack([exchange('a', context.slice(1_000, 9_000))], [context]);
    expect(() => parseTrajectory(text, { missingContext: 'error' })).toThrow(
      expect.objectContaining({
        code: 'trace.context_missing',
        message: expect.stringContaining(`context (200000 chars, sha256:`),
        details: expect.objectContaining({ context: 0, length: 200_000, given: null }),
      }),
    );
    const changed = `${context.slice(0, -1)}!`;
    expect(() => parseTrajectory(text, { payloads: [changed] })).toThrow(
      expect.objectContaining({
        code: 'trace.context_missing',
        details: expect.objectContaining({ given: expect.stringContaining('different') }),
      }),
    );
    // Without payloads (a reader that only needs the events) the slice is a note naming the context.
    const [record] = parseTrajectory(text);
    expect(record).toMatchObject({
      request: {
        messages: [
          {
            content: expect.stringMatching(
              /^\[8000 chars of context \(200000 chars, sha256:[0-9a-f]{16}\) from offset \d+: that context was not given\]$/,
            ),
          },
        ],
      },
    });
  });

  it('refuses a format-2 slice whose hash does not match the context', () => {
    const packer = new TrajectoryPacker({ payloads: [context] });
    const [line] = JSON.parse(
      JSON.stringify([packer.pack(exchange('a', context.slice(1_000, 9_000)))]),
    );
    const part = line.strings[0].parts[0];
    const format2 = {
      ...part,
      hash: textHash(context.slice(part.offset, part.offset + part.length)),
    };
    line.strings[0].parts[0] = format2;
    expect(expandTrajectory([line], { payloads: [context] })).toHaveLength(1);
    line.strings[0].parts[0] = { ...format2, offset: 5 };
    expect(() => expandTrajectory([line], { payloads: [context] })).toThrow(
      expect.objectContaining({
        code: 'protocol.invalid_message',
        message: expect.stringContaining('does not match its hash'),
      }),
    );
  });

  it('refuses a slice that reaches past its context', () => {
    const packer = new TrajectoryPacker({ payloads: [context] });
    const [line] = JSON.parse(
      JSON.stringify([packer.pack(exchange('a', context.slice(1_000, 9_000)))]),
    );
    line.strings[0].parts[0].offset = context.length - 10;
    expect(() => expandTrajectory([line], { payloads: [context] })).toThrow(
      expect.objectContaining({
        code: 'protocol.invalid_message',
        message: expect.stringContaining("past the context's end"),
      }),
    );
  });

  it('declares a context with the hash its writer already had, when the length agrees', () => {
    const known = 'sha256:0123456789abcdef';
    const declared = (length: number) => {
      const packer = new TrajectoryPacker({ payloads: [context] });
      packer.knowPayloadHashes([{ hash: known, length }]);
      const line = packer.pack(exchange('a', context.slice(1_000, 9_000)));
      return line.kind === 'packed' ? line.contexts?.[0]?.hash : undefined;
    };
    expect(declared(context.length)).toBe(known);
    // A hash for a payload of another length is not this context's: it is computed.
    expect(declared(context.length - 1)).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(declared(context.length - 1)).not.toBe(known);
  });

  it('records the same lines when records carry undefined members or non-finite numbers', () => {
    const record = exchange('a', context.slice(1_000, 9_000));
    const odd = { ...record, extra: undefined, costUsd: Number.NaN, list: [undefined, 1] };
    const packed = (value: unknown) =>
      JSON.stringify(new TrajectoryPacker({ payloads: [context] }).pack(value as TrajectoryRecord));
    expect(packed(odd)).toBe(packed(JSON.parse(JSON.stringify(odd))));
  });

  it('reads format-1 files as they were', () => {
    const records = [exchange('a', 'short')];
    expect(parseTrajectory(jsonl(records))).toEqual(records);
  });

  it('expands every recorded string to the original, wherever its slices come from', () => {
    const source = prose(20_000, 11);
    const piece = fc
      .record({ at: fc.nat({ max: source.length }), length: fc.nat({ max: 6_000 }) })
      .map(({ at, length }) => source.slice(at, at + length));
    const literal = fc.string({ unit: 'binary', maxLength: 2_000 });
    const recorded = fc
      .array(fc.oneof(piece, literal), { maxLength: 5 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(recorded, { minLength: 1, maxLength: 4 }), (contents) => {
        const records = contents.map((content, i) => exchange(`c${i}`, content, content));
        const packer = new TrajectoryPacker({ payloads: [source], minChars: 300 });
        const lines = records.map((record) => packer.pack(record));
        expect(expandTrajectory(JSON.parse(JSON.stringify(lines)), { payloads: [source] })).toEqual(
          records,
        );
      }),
      { numRuns: 60 },
    );
  });
});
