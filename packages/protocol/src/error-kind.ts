import type { ErrorCode } from './rlm-error.js';

/**
 * Who has to act on an error, the one classification every consumer derives its own mapping
 * from (CLI exit codes, HTTP statuses, which failures stop an eval):
 * - `usage`: the input or configuration is wrong; the caller must change it.
 * - `auth`: a key is missing or refused.
 * - `provider`: the model provider failed or refused the request (overload, network, 5xx, …).
 * - `limit`: a budget or resource limit stopped the work.
 * - `cancelled`: someone cancelled it.
 * - `internal`: a fault in the runtime itself.
 */
export const ERROR_KINDS = ['usage', 'auth', 'provider', 'limit', 'cancelled', 'internal'] as const;

/** One of `ERROR_KINDS`. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/**
 * The kind of every error code. `satisfies Record<ErrorCode, ErrorKind>` makes a new code in
 * `ErrorDetails` fail to compile until it has a kind here, so no mapping derived from this
 * table can miss it.
 */
export const ERROR_KIND_BY_CODE = {
  'protocol.invalid_payload': 'usage',
  'protocol.invalid_message': 'usage',
  'sandbox.timeout': 'limit',
  'sandbox.deadlock': 'internal',
  'sandbox.out_of_memory': 'limit',
  'sandbox.stack_overflow': 'limit',
  'sandbox.poisoned': 'internal',
  'sandbox.disposed': 'internal',
  'sandbox.aborted': 'cancelled',
  'sandbox.invalid_value': 'usage',
  'sandbox.pattern_timeout': 'limit',
  'sandbox.invalid_pattern': 'usage',
  'sandbox.reset': 'limit',
  'sandbox.too_large': 'limit',
  'model.rate_limited': 'provider',
  'model.overloaded': 'provider',
  'model.context_too_long': 'provider',
  'model.auth': 'auth',
  'model.bad_request': 'provider',
  'model.not_found': 'usage',
  'model.server_error': 'provider',
  'model.network': 'provider',
  'model.timeout': 'provider',
  'model.aborted': 'cancelled',
  'model.unknown_provider': 'usage',
  'model.refused': 'provider',
  'executor.budget_exceeded': 'limit',
  'executor.cancelled': 'cancelled',
  'executor.replay_divergence': 'usage',
  'executor.no_checkpoint': 'usage',
  'executor.not_resumable': 'usage',
  'executor.answer_refused': 'usage',
  'trace.context_missing': 'usage',
  'prompts.layer_immutable': 'usage',
  'prompts.layer_invalid': 'usage',
  'prompts.layer_too_long': 'usage',
  'prompts.layer_override_attempt': 'usage',
  'prompts.prompt_too_long': 'usage',
  'prompts.driver_invalid': 'usage',
  'prompts.driver_conflict': 'usage',
  'prompts.driver_not_found': 'usage',
  'memory.schema_too_new': 'usage',
  'memory.not_found': 'usage',
  'memory.storage_failed': 'internal',
  'memory.lease_lost': 'internal',
  'eval.invalid_task': 'usage',
  'eval.invalid_results': 'usage',
  'config.invalid': 'usage',
  'cli.usage': 'usage',
  'cli.context_unreadable': 'usage',
  'cli.context_binary': 'usage',
  'cli.context_empty': 'usage',
  'cli.context_too_large': 'usage',
  'cli.trajectory_invalid': 'usage',
  'cli.not_available': 'usage',
  'testkit.script_exhausted': 'internal',
  'server.unauthorized': 'auth',
  'server.forbidden': 'auth',
  'server.not_found': 'usage',
  'server.rate_limited': 'limit',
  'server.payload_too_large': 'usage',
  'server.conflict': 'usage',
  'server.unavailable': 'internal',
  'server.internal': 'internal',
  'mcp.connection_failed': 'usage',
  'mcp.invalid_arguments': 'usage',
  'mcp.tool_failed': 'provider',
  'mcp.path_refused': 'usage',
  'mcp.context_unreadable': 'usage',
  'mcp.context_too_large': 'usage',
  'mcp.no_sub_model': 'usage',
} as const satisfies Record<ErrorCode, ErrorKind>;

/**
 * The kind of an error code. A code this build does not know (from a newer peer, read from a
 * stored record) is `internal`.
 *
 * @example
 * errorKind('model.rate_limited'); // 'provider'
 */
export function errorKind(code: string): ErrorKind {
  return (ERROR_KIND_BY_CODE as Partial<Record<string, ErrorKind>>)[code] ?? 'internal';
}
