import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAnswer, MAX_ANSWER_ISSUES, MAX_ANSWER_NOTE_CHARS } from './check-answer.js';
import { outputFromJsonSchema, outputSpec } from './output-spec.js';

const invoice = outputSpec(z.object({ total: z.number(), items: z.array(z.string()) }));

describe('checkAnswer', () => {
  it('reads FINAL text as JSON and returns the value with its JSON text', () => {
    const checked = checkAnswer({ text: '{"total": 3, "items": ["a"]}' }, invoice);
    expect(checked).toEqual({
      ok: true,
      value: { total: 3, items: ['a'] },
      json: '{"total":3,"items":["a"]}',
    });
  });

  it('takes a variable holding an object as the value itself', () => {
    const value = { total: 1, items: [] };
    expect(checkAnswer({ text: JSON.stringify(value), value }, invoice)).toMatchObject({
      ok: true,
      value,
    });
  });

  it('takes plain text for a string schema and JSON text for a number schema', () => {
    expect(checkAnswer({ text: 'Paris' }, outputSpec(z.string()))).toMatchObject({
      ok: true,
      value: 'Paris',
      json: '"Paris"',
    });
    expect(checkAnswer({ text: '"Paris"' }, outputSpec(z.string()))).toMatchObject({
      value: 'Paris',
    });
    expect(checkAnswer({ text: '42' }, outputSpec(z.string()))).toMatchObject({ value: '42' });
    expect(checkAnswer({ text: '42' }, outputSpec(z.number()))).toMatchObject({ value: 42 });
  });

  it('names the path, what was expected and what it got when the value does not match', () => {
    const checked = checkAnswer({ text: '{"total": "12 USD", "items": ["a", 7]}' }, invoice);
    expect(checked.ok).toBe(false);
    const note = checked.ok ? '' : checked.note;
    expect(note).toContain(
      'at total: Invalid input: expected number, received string; got "12 USD"',
    );
    expect(note).toContain('at items.1: Invalid input: expected string, received number; got 7');
  });

  it('says the text is not JSON when it is not, with the schema issue of the text', () => {
    const checked = checkAnswer({ text: 'about twelve' }, invoice);
    expect(checked.ok).toBe(false);
    const note = checked.ok ? '' : checked.note;
    expect(note).toContain('it is not valid JSON');
    expect(note).toContain('at (root): Invalid input: expected object, received string');
  });

  it('caps the issues listed and the length of the note', () => {
    const many = outputSpec(z.array(z.number()));
    const value = Array.from({ length: 50 }, () => 'x'.repeat(500));
    const checked = checkAnswer({ text: JSON.stringify(value), value }, many);
    const note = checked.ok ? '' : checked.note;
    expect(note.match(/^- at /gm)).toHaveLength(MAX_ANSWER_ISSUES);
    expect(note).toContain(`… and ${50 - MAX_ANSWER_ISSUES} more`);
    expect(note.length).toBeLessThan(MAX_ANSWER_NOTE_CHARS + 200);
    expect(note).toContain('… (502 chars)');
  });

  it('validates with a schema built from JSON Schema', () => {
    const spec = outputSpec(
      outputFromJsonSchema({
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1 } },
        required: ['n'],
        additionalProperties: false,
      }),
    );
    expect(checkAnswer({ text: '{"n": 2}' }, spec)).toMatchObject({ ok: true, value: { n: 2 } });
    const refused = checkAnswer({ text: '{"n": 0, "x": 1}' }, spec);
    expect(refused.ok ? '' : refused.note).toMatch(/at n: Too small.*>=1; got 0/);
  });
});

describe('outputFromJsonSchema', () => {
  it('refuses a JSON Schema feature it cannot check, naming the source', () => {
    expect(() =>
      outputFromJsonSchema(JSON.parse('{"if": {"type": "string"}, "then": {}}'), {
        source: '--output-schema',
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        details: {
          source: '--output-schema',
          issues: [expect.stringContaining('if/then/else')],
        },
      }),
    );
  });

  it('refuses something that is not a schema object', () => {
    expect(() => outputFromJsonSchema([1, 2])).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
  });
});

describe('outputSpec', () => {
  it('describes the schema’s input side as JSON Schema without $schema', () => {
    const spec = outputSpec(z.object({ when: z.string().transform((text) => new Date(text)) }));
    expect(spec.jsonSchema).toEqual({
      type: 'object',
      properties: { when: { type: 'string' } },
      required: ['when'],
    });
  });
});
