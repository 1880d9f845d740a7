/**
 * The process exit codes of `rlm`, one meaning each, so scripts can branch on them.
 * 0 answered, 1 failed or stopped by a limit without an answer, 2 bad usage, 130 cancelled (128 + SIGINT).
 */
export const EXIT_CODES = {
  answered: 0,
  failed: 1,
  usage: 2,
  cancelled: 130,
} as const;

/** One of the values of `EXIT_CODES`. */
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
