import { type ErrorKind, errorKind, type RLMChatCompletion } from '@rlm/protocol';

/**
 * The process exit codes of `rlm`, one meaning each, so scripts can branch on them. Only a run
 * that completed with an answer exits 0; failures exit by the kind of their error code
 * (@rlm/protocol's `ERROR_KIND_BY_CODE`), so no list of codes is kept here.
 */
export const EXIT_CODES = {
  /** Completed with an answer (also `--help`, `--version`, `trace`, `config`). */
  answered: 0,
  /** An internal failure (kind `internal`, or an error without a code); `replay` diverged. */
  failed: 1,
  /** Bad input or configuration (kind `usage`); the run did not start. */
  usage: 2,
  /** The run ended without a final answer from its turns: it reached the iteration limit. */
  noAnswer: 3,
  /**
   * A budget or time limit stopped the run (status `budget_exceeded`/`timeout`, kind `limit`), or
   * it answered but a budget refused some of its sub-calls (`refusedCalls` > 0).
   */
  limit: 4,
  /** The model provider failed (kind `provider`: overload, network, server error, …). */
  provider: 5,
  /** A key is missing or was refused (kind `auth`). */
  auth: 6,
  /** Cancelled with Ctrl-C (128 + SIGINT). */
  cancelled: 130,
} as const;

/** One of the values of `EXIT_CODES`. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The exit code of each error kind: every code maps through its kind. */
export const EXIT_CODE_BY_KIND = {
  usage: EXIT_CODES.usage,
  auth: EXIT_CODES.auth,
  provider: EXIT_CODES.provider,
  limit: EXIT_CODES.limit,
  cancelled: EXIT_CODES.cancelled,
  internal: EXIT_CODES.failed,
} as const satisfies Record<ErrorKind, ExitCode>;

/** The exit code for a failure with error code `code` (unknown codes are internal: 1). */
export function exitCodeForError(code: string): ExitCode {
  return EXIT_CODE_BY_KIND[errorKind(code)];
}

/**
 * The exit code of a finished run: 0 only for `completed` with an answer and no sub-call a
 * budget refused; 3 at the iteration limit (even when the extra answer-now turn gave an answer);
 * 4 for a budget or time limit, and for an answer reached while a budget refused sub-calls (work
 * the code asked for was not done, so the answer may rest on part of it); 130 when cancelled; for
 * status `error`, the kind of its error code.
 */
export function exitCodeOf(
  completion: Pick<RLMChatCompletion, 'status' | 'answer' | 'error' | 'refusedCalls'>,
): ExitCode {
  switch (completion.status) {
    case 'completed':
      if (completion.answer === null) return EXIT_CODES.noAnswer;
      return (completion.refusedCalls ?? 0) > 0 ? EXIT_CODES.limit : EXIT_CODES.answered;
    case 'max_iterations':
      return EXIT_CODES.noAnswer;
    case 'budget_exceeded':
    case 'timeout':
      return EXIT_CODES.limit;
    case 'cancelled':
      return EXIT_CODES.cancelled;
    case 'error':
    case 'interrupted':
      return completion.error === null
        ? EXIT_CODES.failed
        : exitCodeForError(completion.error.code);
  }
}
