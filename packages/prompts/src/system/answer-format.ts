/**
 * The root's answer-format section for a typed answer: the JSON Schema its final answer must
 * match and how to give a structured value.
 *
 * @example
 * answerFormat({ type: 'object', properties: { total: { type: 'number' } }, required: ['total'] });
 */
export function answerFormat(jsonSchema: Readonly<Record<string, unknown>>): string {
  return [
    '## Answer format',
    '',
    'Your final answer must be a JSON value that matches this JSON Schema:',
    '',
    '```json',
    JSON.stringify(jsonSchema, null, 2),
    '```',
    '',
    'Build the value in a variable and answer with `FINAL_VAR(name)` (an object or array is taken as it is), or call `FINAL(value)` in code, or write `FINAL(...)` with the JSON text. An answer that does not match is refused with the reasons (where, what was expected, what it got), and you go on working until it matches.',
  ].join('\n');
}
