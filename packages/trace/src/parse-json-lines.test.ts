import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseJsonLines, safeParseJsonLines } from './parse-json-lines.js';

const rowSchema = z.object({ id: z.number().int(), text: z.string() });
type Row = z.infer<typeof rowSchema>;

const rows = fc.array(
  fc.record({
    id: fc.integer(),
    // Newlines, quotes and braces inside values: JSON escapes them, so a line stays a line.
    text: fc.string({ unit: fc.constantFrom('a', '\n', '"', '{', '}', '\\', ' ', 'é') }),
  }),
  { maxLength: 6 },
);

function jsonl(values: readonly Row[]): string {
  return values.map((value) => `${JSON.stringify(value)}\n`).join('');
}

describe('safeParseJsonLines', () => {
  it('reads a file cut anywhere as the rows written before the cut', () => {
    fc.assert(
      fc.property(rows, fc.nat(), (values, at) => {
        const text = jsonl(values);
        const cut = text.slice(0, at % (text.length + 1));
        const result = safeParseJsonLines(cut, rowSchema);
        if (!result.ok) throw new Error(`line ${result.error.line}: ${result.error.issues}`);
        const complete = cut.split('\n').length - 1;
        const tail = cut.slice(cut.lastIndexOf('\n') + 1);
        // A cut just before a newline leaves a whole row: it is read, and nothing was dropped.
        const whole = tail !== '' && tail === JSON.stringify(values[complete]);
        expect(result.value).toEqual(values.slice(0, complete + (whole ? 1 : 0)));
        expect(result.truncated).toBe(tail !== '' && !whole);
      }),
    );
  });

  it('skips blank lines and reads lines ending in \\r\\n', () => {
    const text = '\n{"id":1,"text":"a"}\r\n\n  \n{"id":2,"text":"b"}\n';
    expect(safeParseJsonLines(text, rowSchema)).toEqual({
      ok: true,
      value: [
        { id: 1, text: 'a' },
        { id: 2, text: 'b' },
      ],
      lines: [2, 5],
      truncated: false,
    });
  });

  it('reports a bad line that is not the tail, with its number', () => {
    const text = '{"id":1,"text":"a"}\n{"id":2,\n{"id":3,"text":"c"}\n';
    const result = safeParseJsonLines(text, rowSchema);
    expect(result).toMatchObject({ ok: false, error: { line: 2 } });
    expect(!result.ok && result.error.issues[0]).toMatch(/^not JSON \(/);
  });

  it('reports a last line that is not JSON but ends in a newline: a whole line, not a cut', () => {
    const result = safeParseJsonLines('{"id":1,"text":"a"}\n{"id":2,\n', rowSchema);
    expect(result).toMatchObject({ ok: false, error: { line: 2 } });
  });

  it('reports a tail that is JSON but breaks the schema, naming the field', () => {
    const result = safeParseJsonLines('{"id":1,"text":"a"}\n{"id":"two","text":"b"}', rowSchema);
    expect(result).toMatchObject({ ok: false, error: { line: 2 } });
    expect(!result.ok && result.error.issues.join()).toContain('id');
  });

  it('refuses a truncated tail when asked to (hand-written files)', () => {
    const text = '{"id":1,"text":"a"}\n{"id":2,"te';
    expect(safeParseJsonLines(text, rowSchema)).toMatchObject({ ok: true, truncated: true });
    expect(safeParseJsonLines(text, rowSchema, { truncatedTail: 'error' })).toMatchObject({
      ok: false,
      error: { line: 2 },
    });
  });
});

describe('parseJsonLines', () => {
  it('throws protocol.invalid_message naming the source and the line', () => {
    expect(() => parseJsonLines('{"id":1}\n', rowSchema, { source: 'rows.jsonl' })).toThrow(
      expect.objectContaining({
        code: 'protocol.invalid_message',
        message: expect.stringMatching(/^Invalid rows\.jsonl at line 1: text: /),
        details: { issues: [expect.stringMatching(/^line 1: text: /)] },
      }),
    );
  });
});
