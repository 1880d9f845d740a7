const MARK = Symbol.for('rlm.error');

/**
 * The registry of error codes: one key per code, valued by the shape of its `details`.
 * Codes are API (adding one is minor, renaming or removing one is major); messages are not.
 * Packages add their codes here so every code is known in one place and apps can map
 * them exhaustively (`satisfies Record<ErrorCode, …>`).
 */
export interface ErrorDetails {
  // protocol
  'protocol.invalid_payload': { path: string; expected: string };
  'protocol.invalid_message': { issues: readonly string[] };
  // sandbox
  'sandbox.timeout': { limitMs: number; kind: 'cpu' | 'wall' };
  'sandbox.deadlock': Record<string, never>;
  'sandbox.out_of_memory': { limitBytes: number };
  'sandbox.stack_overflow': Record<string, never>;
  'sandbox.poisoned': { reason: string };
  'sandbox.disposed': Record<string, never>;
  'sandbox.aborted': Record<string, never>;
  'sandbox.invalid_value': { name: string; reason: string };
  'sandbox.pattern_timeout': { limitMs: number };
  'sandbox.invalid_pattern': { pattern: string };
  /** The engine was replaced by a fresh one (a watchdog stopped it): the REPL's state is gone. */
  'sandbox.reset': { reason: 'cpu' | 'wall' | 'aborted' | 'jobs' };
  /** A value was refused at the sandbox boundary for its size (`limit` in the same unit as `size`). */
  'sandbox.too_large': { what: string; size: number; limit: number };
  // model clients
  'model.rate_limited': { retryAfterMs: number | undefined; status: number };
  'model.overloaded': { status: number };
  'model.context_too_long': { status: number };
  /**
   * The provider refused the key (`status` 401/403), or there is no key at all (`status`
   * undefined; `variable` and `option` name where a key comes from).
   */
  'model.auth': { status: number | undefined; variable?: string; option?: string };
  'model.bad_request': { status: number };
  'model.not_found': { status: number; model: string };
  'model.server_error': { status: number };
  'model.network': Record<string, never>;
  'model.timeout': { limitMs: number };
  'model.aborted': Record<string, never>;
  'model.unknown_provider': { modelId: string };
  /**
   * The model declined to answer (Anthropic's `refusal` stop reason, a provider's content
   * filter): asking the same again will not help. `category` is the provider's policy category.
   */
  'model.refused': { model: string; category: string | null };
  // executor
  'executor.budget_exceeded': { limit: string; used: number; max: number };
  'executor.cancelled': Record<string, never>;
  'executor.replay_divergence': { step: number; expected: string; actual: string };
  'executor.no_checkpoint': { runId: string };
  /** The run is unknown to the store (`status` null) or ended in a status that cannot be continued. */
  'executor.not_resumable': { runId: string; status: string | null };
  /** A run ended without an answer, its last final answer refused by the output schema (`issues`: where and why). */
  'executor.answer_refused': { issues: readonly string[] };
  // trace
  /**
   * A trajectory refers to slices of a context that was not given to its reader (`given` null) or
   * is not the recorded one (`given` says what was): `context` is the payload (0 the context, 1…
   * the extra contexts), `element` the array element when that payload is an array.
   */
  'trace.context_missing': {
    context: number;
    element: number | null;
    length: number;
    hash: string;
    given: string | null;
  };
  // prompts
  'prompts.layer_immutable': { layerId: number };
  'prompts.layer_invalid': { layerId: number; reason: string };
  'prompts.layer_too_long': { layerId: number; length: number; max: number };
  'prompts.layer_override_attempt': { layerId: number; phrase: string };
  'prompts.prompt_too_long': { length: number; max: number };
  'prompts.driver_invalid': { source: string; issues: readonly string[] };
  'prompts.driver_conflict': { driver: string; mode: string };
  'prompts.driver_not_found': { name: string };
  // memory
  'memory.schema_too_new': { fileVersion: number; supportedVersion: number };
  'memory.not_found': { kind: string; id: string };
  'memory.storage_failed': { operation: string };
  'memory.lease_lost': { runId: string; holder: string };
  // eval
  'eval.invalid_task': { line: number | undefined; issues: readonly string[] };
  'eval.invalid_results': { path: string; line: number | undefined; issues: readonly string[] };
  // configuration (any package: options, config files, flags, environment)
  'config.invalid': { source: string; issues: readonly string[] };
  // cli
  'cli.usage': { option: string };
  'cli.context_unreadable': { path: string; reason: string };
  'cli.context_binary': { path: string };
  /** A directory or glob context with no text file left: `skipped` says which files were left out and why. */
  'cli.context_empty': { path: string; skipped: readonly { file: string; reason: string }[] };
  'cli.context_too_large': { path: string; bytes: number; maxBytes: number };
  'cli.trajectory_invalid': { path: string; line: number | undefined };
  'cli.not_available': { feature: string };
  // testkit
  'testkit.script_exhausted': { calls: number; steps: number };
  // server (HTTP API)
  'server.unauthorized': { reason: 'missing' | 'invalid' | 'revoked' };
  'server.forbidden': { reason: string };
  'server.not_found': { resource: string; id: string };
  'server.rate_limited': { retryAfterMs: number; limit: 'requests' | 'concurrent_runs' | 'queue' };
  'server.payload_too_large': { what: string; limitBytes: number };
  'server.conflict': { reason: string };
  'server.unavailable': { reason: string };
  'server.internal': { requestId: string };
  // mcp (tools from Model Context Protocol servers)
  'mcp.connection_failed': { server: string; reason: string };
  'mcp.invalid_arguments': { tool: string; issues: readonly string[] };
  'mcp.tool_failed': { tool: string };
  // mcp (the RLM served as MCP tools)
  /** A path outside the allowed roots, or a symlink that leads out of them. */
  'mcp.path_refused': { path: string; reason: 'outside_roots' | 'symlink_escape' };
  'mcp.context_unreadable': { path: string; reason: string };
  'mcp.context_too_large': { path: string; bytes: number; maxBytes: number };
  /** `llm_query` in an MCP session whose client offers no sampling and no model is configured. */
  'mcp.no_sub_model': Record<string, never>;
}

/** A stable, namespaced error code such as `sandbox.timeout`. */
export type ErrorCode = keyof ErrorDetails;

export interface RlmErrorOptions<C extends ErrorCode> {
  code: C;
  message: string;
  details: ErrorDetails[C];
  /** Whether trying the same operation again may succeed. @default false */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * The one error class every @rlm package throws. Match on `code`, never on `message`.
 *
 * @example
 * if (RlmError.is(error, 'sandbox.timeout')) console.log(error.details.limitMs);
 */
export class RlmError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'RlmError';
  readonly [MARK] = true;
  readonly code: C;
  readonly details: ErrorDetails[C];
  readonly retryable: boolean;

  constructor({ code, message, details, retryable = false, cause }: RlmErrorOptions<C>) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.details = details;
    this.retryable = retryable;
  }

  /** True for any `RlmError` (optionally with `code`), even from a duplicate install of this package. */
  static is<C extends ErrorCode>(value: unknown, code?: C): value is RlmError<C> {
    return (
      typeof value === 'object' &&
      value !== null &&
      MARK in value &&
      (code === undefined || (value as RlmError).code === code)
    );
  }

  /** A JSON-safe view for logs, events and HTTP bodies (no cause chain, no stack). */
  toJSON(): { code: C; message: string; details: ErrorDetails[C]; retryable: boolean } {
    return {
      code: this.code,
      message: this.message,
      details: this.details,
      retryable: this.retryable,
    };
  }
}
