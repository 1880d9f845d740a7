import { describe, expect, it } from 'vitest';
import { MAX_PARAMETER_NOTES_CHARS, parameterNotes, toolSignature } from './tool-signature.js';

describe('toolSignature', () => {
  it('reads required and optional parameters, enums, arrays and nested objects', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        units: { enum: ['c', 'f'] },
        days: { type: 'array', items: { type: 'integer' } },
        tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        where: {
          type: 'object',
          properties: { lat: { type: 'number' }, deep: { type: 'object', properties: { x: {} } } },
          required: ['lat'],
        },
      },
      required: ['city'],
    };
    expect(toolSignature(schema)).toBe(
      '({ city: string, units?: "c" | "f", days?: number[], tags?: (string | null)[], where?: { lat: number, deep?: {…} } })',
    );
  });

  it('gives () for a tool without parameters or without a usable schema', () => {
    expect(toolSignature({ type: 'object' })).toBe('()');
    expect(toolSignature(null)).toBe('()');
  });
});

describe('parameterNotes', () => {
  it('lists described parameters and caps the text', () => {
    expect(
      parameterNotes({
        properties: { q: { description: 'the  query\ntext' }, n: { type: 'number' } },
      }),
    ).toBe('Parameters: `q`: the query text.');
    const long = parameterNotes({ properties: { q: { description: 'x'.repeat(5_000) } } });
    expect(long.length).toBe(MAX_PARAMETER_NOTES_CHARS + 1);
  });
});
