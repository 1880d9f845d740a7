import type { RLMChatCompletion } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import { type ErrorHints, failureSentence } from '../describe-error.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';

export interface ReportCompletionOptions {
  io: CliIo;
  /** Print the whole completion as JSON instead of the answer text. */
  json: boolean;
  quiet: boolean;
  /** The model and endpoint, so a failed call can be explained with its fix. */
  hints: ErrorHints;
}

/**
 * Prints a finished run: the answer (or, without one, the best partial answer) on stdout, and on
 * stderr how it ended and where its trajectory is. Returns the exit code for that outcome.
 */
export function reportCompletion(
  completion: RLMChatCompletion,
  { io, json, quiet, hints }: ReportCompletionOptions,
): ExitCode {
  const exitCode = exitCodeOf(completion);
  const text = completion.answer ?? completion.partialAnswer;
  if (json) io.stdout.write(`${JSON.stringify(completion, null, 2)}\n`);
  else if (text !== null) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const trajectory =
    completion.trajectoryPath === null ? '' : `Trajectory: ${completion.trajectoryPath}\n`;
  if (exitCode === EXIT_CODES.answered) {
    if (!quiet) io.stderr.write(trajectory);
    return exitCode;
  }
  const partial =
    completion.answer === null && completion.partialAnswer !== null && !json
      ? ' The partial answer is on stdout.'
      : '';
  io.stderr.write(`rlm: ${endingOf(completion, hints)}${partial}\n${trajectory}`);
  return exitCode;
}

/** 130 for a cancelled run, 0 when there is an answer, 1 otherwise. */
function exitCodeOf(completion: RLMChatCompletion): ExitCode {
  if (completion.status === 'cancelled') return EXIT_CODES.cancelled;
  return completion.answer === null ? EXIT_CODES.failed : EXIT_CODES.answered;
}

function endingOf(completion: RLMChatCompletion, hints: ErrorHints): string {
  if (completion.status === 'cancelled') return 'Cancelled.';
  const { error } = completion;
  if (completion.status === 'error' && error !== null) {
    return failureSentence(error.code, error.message, hints);
  }
  const reason = error === null ? '' : `: ${error.message.replace(/\.$/, '')}`;
  return `The run ended without an answer (${completion.status}${reason}).`;
}
