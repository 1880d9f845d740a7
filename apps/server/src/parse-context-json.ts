import { type JsonValue, jsonValueSchema, RlmError } from '@rlm/protocol';
import { assertJsonDepth } from './json-nesting.js';

/** The error for a context past the server's limit. */
export function contextTooLarge(limitBytes: number): RlmError<'server.payload_too_large'> {
  return new RlmError({
    code: 'server.payload_too_large',
    message: `The context exceeds the server's limit of ${limitBytes} bytes`,
    details: { what: 'context', limitBytes },
  });
}

/**
 * Parses a JSON context: a JSON string, array or object.
 * @throws RlmError `protocol.invalid_payload` for anything else, or one nested deeper than
 *   `MAX_JSON_DEPTH`
 */
export function parseContextJson(text: string): JsonValue {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RlmError({
      code: 'protocol.invalid_payload',
      message: 'The uploaded context is not valid JSON (send text/plain for a plain string)',
      details: { path: 'body', expected: 'JSON string, array or object' },
      cause: error,
    });
  }
  assertJsonDepth(value, 'uploaded context');
  const parsed = jsonValueSchema.safeParse(value);
  if (
    !parsed.success ||
    parsed.data === null ||
    typeof parsed.data === 'number' ||
    typeof parsed.data === 'boolean'
  ) {
    throw new RlmError({
      code: 'protocol.invalid_payload',
      message: 'The uploaded context must be a JSON string, array or object',
      details: { path: 'body', expected: 'JSON string, array or object' },
    });
  }
  return parsed.data;
}
