import { type JsonValue, RlmError } from '@rlm/protocol';
import type { HostCaller } from './engine/host-bridge.js';
import type { HostFunction } from './sandbox-options.js';

/** Routes guest host calls to the caller's functions by name. */
export function createHostCaller(functions: Record<string, HostFunction>): HostCaller {
  return async (name: string, args: JsonValue[], signal: AbortSignal) => {
    const fn = Object.hasOwn(functions, name) ? functions[name] : undefined;
    if (fn === undefined) {
      throw new RlmError({
        code: 'sandbox.invalid_value',
        message: `no host function named ${name}`,
        details: { name, reason: 'unknown host function' },
      });
    }
    return fn.call(args, { signal });
  };
}
