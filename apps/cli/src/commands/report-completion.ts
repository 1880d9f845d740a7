import type { RLMChatCompletion } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES, type ExitCode } from '../exit-code.js';

export interface ReportCompletionOptions {
  io: CliIo;
  /** Print the whole completion as JSON instead of the answer text. */
  json: boolean;
  quiet: boolean;
}

/**
 * Prints a finished run: the answer (or, without one, the best partial answer) on stdout, and on
 * stderr how it ended and where its trajectory is. Returns the exit code for that outcome.
 */
export function reportCompletion(
  completion: RLMChatCompletion,
  { io, json, quiet }: ReportCompletionOptions,
): ExitCode {
  const exitCode = exitCodeOf(completion);
  const text = completion.answer ?? completion.partialAnswer;
  if (json) io.stdout.write(`${JSON.stringify(completion, null, 2)}\n`);
  else if (text !== null) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const trajectory =
    completion.trajectoryPath === null ? '' : ` Trajectory: ${completion.trajectoryPath}`;
  if (exitCode === EXIT_CODES.answered) {
    if (!quiet && trajectory !== '') io.stderr.write(`${trajectory.trim()}\n`);
    return exitCode;
  }
  const partial =
    completion.answer === null && completion.partialAnswer !== null && !json
      ? '; the partial answer is on stdout'
      : '';
  io.stderr.write(`${endingOf(completion)}${partial}.${trajectory}\n`);
  return exitCode;
}

/** 130 for a cancelled run, 0 when there is an answer, 1 otherwise. */
function exitCodeOf(completion: RLMChatCompletion): ExitCode {
  if (completion.status === 'cancelled') return EXIT_CODES.cancelled;
  return completion.answer === null ? EXIT_CODES.failed : EXIT_CODES.answered;
}

function endingOf(completion: RLMChatCompletion): string {
  if (completion.status === 'cancelled') return 'Cancelled';
  const reason = completion.error === null ? '' : `: ${completion.error.message}`;
  return `The run ended without an answer (${completion.status}${reason})`;
}
