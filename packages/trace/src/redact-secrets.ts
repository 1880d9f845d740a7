import type { JsonValue } from '@rlm/protocol';

/** Config keys whose values are credentials. `maxTokens` and friends are budgets, not secrets. */
const SECRET_KEY =
  /(api[-_]?key|secret|password|passwd|authorization|bearer|credential|access[-_]?token|auth[-_]?token)/i;

/** Shapes of provider keys and bearer headers that may leak into prompts or error messages. */
const SECRET_VALUE =
  /\b(sk-(?:ant-)?[A-Za-z0-9_-]{16,}|xox[abp]-[A-Za-z0-9-]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16})\b|(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/g;

/** The placeholder written instead of a secret. */
export const REDACTED = '[REDACTED]';

/**
 * A literal every match of `SECRET_VALUE` contains (`_` is in `gh[pousr]_`). Looking for these
 * is about twice as fast as running the pattern, which cannot skip ahead (it starts with `\b`),
 * and most recorded text (a sub-call's chunk of context) holds none of them.
 */
const SECRET_MARKERS = ['sk-', 'xox', 'AKIA', 'Bearer', '_'] as const;

/** Replaces anything that looks like a provider key or bearer token in free text. */
export function redactText(text: string): string {
  if (!SECRET_MARKERS.some((marker) => text.includes(marker))) return text;
  return text.replace(
    SECRET_VALUE,
    (_match, _key: string | undefined, bearer: string | undefined) =>
      bearer === undefined ? REDACTED : `${bearer}${REDACTED}`,
  );
}

/** A deep copy of `value` with secret-named fields and secret-looking strings redacted. */
export function redactSecrets(value: JsonValue): JsonValue {
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    result[key] = SECRET_KEY.test(key) ? REDACTED : redactSecrets(item);
  }
  return result;
}
