import type { JsonValue } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol/core';
import { toBoundedJson } from './bounded-json.js';
import type { HostCaller } from './engine/host-bridge.js';
import type { HostFunction } from './sandbox-options.js';

/** True once the sandbox is disposed: its host functions are never called again. */
export type HostCallGate = () => boolean;

/**
 * Runs a guest's call of one of the caller's functions, by name: refused once the sandbox is
 * disposed, and the result serialized for the guest within `maxHostCallChars` (see `toBoundedJson`).
 */
export async function callHostFunction(
  { name, args, signal }: { name: string; args: JsonValue[]; signal: AbortSignal },
  {
    functions,
    gate,
    maxHostCallChars,
  }: { functions: Record<string, HostFunction>; gate: HostCallGate; maxHostCallChars: number },
): Promise<string | undefined> {
  if (gate()) {
    throw new RlmError({
      code: 'sandbox.disposed',
      message: 'the sandbox was disposed',
      details: {},
    });
  }
  const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
  if (fn === undefined) {
    throw new RlmError({
      code: 'sandbox.invalid_value',
      message: `no host function named ${name}`,
      details: { name, reason: 'unknown host function' },
    });
  }
  const value: unknown = await fn.call(args, { signal });
  return toBoundedJson(value, `the result of ${name}`, maxHostCallChars);
}

/** Routes guest host calls to the caller's functions by name (inline isolation). */
export function createHostCaller(
  functions: Record<string, HostFunction>,
  { gate, maxHostCallChars }: { gate: HostCallGate; maxHostCallChars: number },
): HostCaller {
  return (name, args, signal) =>
    callHostFunction({ name, args, signal }, { functions, gate, maxHostCallChars });
}
