import { ERROR_KIND_BY_CODE, type ErrorCode, type ErrorKind, errorKind } from '@rlm/protocol';

/**
 * The HTTP status of each error kind (@rlm/protocol's one classification of every code), so a
 * new code gets a status the moment it has a kind.
 */
export const STATUS_BY_KIND = {
  usage: 400,
  auth: 401,
  provider: 502,
  limit: 422,
  cancelled: 499,
  internal: 500,
} as const satisfies Record<ErrorKind, number>;

/**
 * Codes whose HTTP meaning is narrower than their kind's status (a missing resource is a usage
 * error that HTTP calls 404). Everything else takes its kind's status.
 */
const NARROWER_STATUS: Partial<Record<ErrorCode, number>> = {
  'memory.not_found': 404,
  'server.not_found': 404,
  'executor.no_checkpoint': 409,
  'executor.not_resumable': 409,
  'server.conflict': 409,
  'cli.context_too_large': 413,
  'server.payload_too_large': 413,
  // A database written by a newer version is the operator's to fix, not the client's.
  'memory.schema_too_new': 500,
  // The run moved to another replica while this one wrote: a conflict, not a fault.
  'memory.lease_lost': 409,
  'prompts.layer_immutable': 403,
  'server.forbidden': 403,
  'cli.not_available': 501,
  // The server's own key or model choice failed upstream: a gateway error, not the client's.
  'model.auth': 502,
  'model.not_found': 502,
  'model.context_too_long': 413,
  'model.rate_limited': 429,
  'server.rate_limited': 429,
  'model.overloaded': 503,
  'server.unavailable': 503,
  'model.timeout': 504,
  'sandbox.timeout': 504,
  'sandbox.pattern_timeout': 504,
};

/** The HTTP status for an error code (a code this build does not know is internal: 500). */
export function statusForCode(code: ErrorCode): number {
  return NARROWER_STATUS[code] ?? STATUS_BY_KIND[errorKind(code)];
}

/** The HTTP status of every error code, derived from its kind. */
export const statusByCode = Object.fromEntries(
  (Object.keys(ERROR_KIND_BY_CODE) as ErrorCode[]).map((code) => [code, statusForCode(code)]),
) as Record<ErrorCode, number>;
