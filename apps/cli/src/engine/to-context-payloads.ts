import type { JsonValue } from '@rlm/protocol';

/** The payloads of a run as `@rlm/executor` takes them: the first, and any after it. */
export interface ContextPayloads {
  context: JsonValue;
  contexts: JsonValue[];
}

/**
 * The payloads a run gets from its `--context` arguments: none gives an empty string (the query
 * then carries the whole task, and the run stays replayable because the empty context's hash is
 * known); several reach the model as `context_0`, `context_1`, … (`context` is `context_0`).
 */
export function toContextPayloads(contexts: readonly JsonValue[]): ContextPayloads {
  const [context = '', ...rest] = contexts;
  return { context, contexts: rest };
}
