import type { BlockError } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol/core';

/** A failure outside QuickJS's own exceptions (host stack overflow, WASM abort): the engine is unusable. */
export class EngineFault extends Error {}

/** The scaffold's own work ran out of time (a hostile Proxy or getter): the engine is fine. */
export class ScaffoldTimeout extends EngineFault {}

/** The error a host-side allocation in guest memory fails with. */
export function outOfMemory(limitBytes: number): RlmError {
  return new RlmError({
    code: 'sandbox.out_of_memory',
    message: `the sandbox ran out of memory (limit ${limitBytes} bytes)`,
    details: { limitBytes },
  });
}

/** The error `execute()` and friends reject with once the engine cannot run code. */
export function poisonedError(reason: string): RlmError {
  return new RlmError({
    code: 'sandbox.poisoned',
    message: `the sandbox is poisoned and must be recreated: ${reason}`,
    details: { reason },
  });
}

/** A block whose error the scaffold could not even read: in practice, an exhausted heap. */
export function undescribedError(): BlockError {
  return {
    name: 'InternalError',
    message: 'the block failed and its error could not be read (memory is probably exhausted)',
    code: 'sandbox.out_of_memory',
  };
}
