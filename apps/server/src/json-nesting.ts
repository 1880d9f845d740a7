import { RlmError } from '@rlm/protocol';

/**
 * How deeply arrays and objects may nest in a request body or a JSON context. `JSON.parse` holds
 * any depth, but what comes after it (validation, storage, the sandbox's copy of the context)
 * recurses, and 200,000 levels overflow the stack: such a body is refused at the edge, as bad
 * input, instead of failing later as an internal error. Real contexts stay far below this.
 */
export const MAX_JSON_DEPTH = 1_000;

/**
 * Throws when `value` (a parsed JSON value) nests deeper than `MAX_JSON_DEPTH`. The walk keeps its
 * own stack, so it cannot overflow on the values it exists to refuse, and stops at the first
 * level past the limit.
 *
 * @throws RlmError `protocol.invalid_payload` naming `what` and the limit
 */
export function assertJsonDepth(value: unknown, what: string, path = 'body'): void {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > MAX_JSON_DEPTH) throw tooDeep(what, path);
    for (const child of Object.values(next.value))
      if (typeof child === 'object' && child !== null)
        pending.push({ value: child, depth: next.depth + 1 });
  }
}

function tooDeep(what: string, path: string): RlmError<'protocol.invalid_payload'> {
  return new RlmError({
    code: 'protocol.invalid_payload',
    message: `The ${what} nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep, which this server does not accept`,
    details: { path, expected: `JSON nested at most ${MAX_JSON_DEPTH} levels deep` },
  });
}
