import { RlmError } from '@rlm/protocol';

/**
 * SQLSTATE classes and codes after which the same operation may succeed: lost or refused
 * connections (08…), serialization failures and deadlocks (40001, 40P01), a server shutting
 * down or starting (57P01–57P03), too many connections (53300).
 */
const RETRYABLE_STATES = new Set(['40001', '40P01', '57P01', '57P02', '57P03', '53300']);
const RETRYABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/** Whether a `pg` or socket error is transient (see `RETRYABLE_STATES`). */
export function isTransientPostgresError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined) {
    return code.startsWith('08') || RETRYABLE_STATES.has(code) || RETRYABLE_NODE_CODES.has(code);
  }
  // pg reports a dropped connection or a pool wait past its timeout without a code.
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect/i.test(message);
}

/**
 * Wraps a driver failure as `memory.storage_failed` (an `RlmError` from the stores passes
 * through). Messages carry Postgres' own text and SQLSTATE, never the connection URL.
 */
export function postgresStorageError(operation: string, cause: unknown): RlmError {
  if (RlmError.is(cause)) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const state =
    typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
      ? ` (${cause.code})`
      : '';
  return new RlmError({
    code: 'memory.storage_failed',
    message: `Postgres ${operation} failed: ${reason}${state}`,
    details: { operation },
    retryable: isTransientPostgresError(cause),
    cause,
  });
}
