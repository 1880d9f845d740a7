import type { JsonValue } from '@rlm/protocol';

/**
 * The one context value a run gets from its `--context` arguments: none gives an empty string
 * (the query then carries the whole task, and the run stays replayable because the empty
 * context's hash is known), one is passed as is, several become an array.
 */
export function toContextValue(contexts: readonly JsonValue[]): JsonValue {
  if (contexts.length === 0) return '';
  if (contexts.length === 1) return contexts[0] ?? '';
  return [...contexts];
}
