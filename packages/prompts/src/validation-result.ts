import type { ErrorCode, RlmError } from '@rlm/protocol';

/**
 * The outcome of a non-throwing check: `{ ok: true }` or the typed error a throwing variant would
 * raise. Narrow on `ok`.
 */
export type ValidationResult<C extends ErrorCode = ErrorCode> =
  | { ok: true }
  | { ok: false; error: RlmError<C> };

/** The outcome of a non-throwing parse: the value, or the typed error. Narrow on `ok`. */
export type ParseResult<T, C extends ErrorCode = ErrorCode> =
  | { ok: true; value: T }
  | { ok: false; error: RlmError<C> };
