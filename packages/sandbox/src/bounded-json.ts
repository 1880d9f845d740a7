import { RlmError } from '@rlm/protocol/core';

/** Thrown from the replacer once the text would pass the cap (identity, never shown). */
const OVER = Symbol('over the cap');

/**
 * Serializes a host function's (or helper's) result for the guest, never failing in the host:
 * the work stops once the text passes `maxChars` (a replacer counts as it goes, so a huge value
 * is never serialized whole), and a value JSON cannot hold (a cycle, a BigInt) is reported, not
 * thrown from deep inside. `undefined` (or a result JSON drops) travels as `undefined`.
 *
 * @throws RlmError `sandbox.too_large` when the text would pass `maxChars`,
 *   `sandbox.invalid_value` when the value cannot be serialized; both reject the guest's promise.
 */
export function toBoundedJson(value: unknown, what: string, maxChars: number): string | undefined {
  if (typeof value === 'string' && value.length + 2 > maxChars) {
    throw tooLarge(what, value.length + 2, maxChars);
  }
  let counted = 0;
  let text: string | undefined;
  try {
    text =
      typeof value === 'string'
        ? JSON.stringify(value)
        : JSON.stringify(value, (key: string, item: unknown) => {
            counted += key.length + (typeof item === 'string' ? item.length : 8) + 4;
            if (counted > maxChars) throw OVER;
            return item;
          });
  } catch (error) {
    if (error === OVER) throw tooLarge(what, counted, maxChars);
    throw new RlmError({
      code: 'sandbox.invalid_value',
      message: `${what} cannot be serialized as JSON (${error instanceof Error ? error.message : String(error)})`,
      details: { name: what, reason: 'not serializable as JSON' },
    });
  }
  if (text !== undefined && text.length > maxChars) throw tooLarge(what, text.length, maxChars);
  return text;
}

function tooLarge(what: string, size: number, limit: number): RlmError<'sandbox.too_large'> {
  return new RlmError({
    code: 'sandbox.too_large',
    message: `${what} takes ${size > limit ? `more than ${limit}` : size} characters as JSON, more than the ${limit} a host call may carry (maxHostCallChars)`,
    details: { what, size, limit },
  });
}
