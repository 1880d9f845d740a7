import { isResumableStatus, type RLMChatCompletion } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import { type ErrorHints, failureSentence } from '../describe-error.js';
import { EXIT_CODES, type ExitCode, exitCodeOf } from '../exit-code.js';

export interface ReportCompletionOptions {
  io: CliIo;
  /** Print the whole completion as JSON instead of the answer text. */
  json: boolean;
  quiet: boolean;
  /** The model and endpoint, so a failed call can be explained with its fix. */
  hints: ErrorHints;
  /** The command that continues this run, shown when it was cancelled or stopped by a budget. */
  resumeCommand?: string;
  /** The `--output-schema` file, named when no answer matched it. */
  outputSchemaFile?: string;
}

/**
 * Prints a finished run: the answer on stdout, and only the answer (a run without one prints
 * nothing there: its last response is not an answer); on stderr how it ended, its last response,
 * how to continue it, and where its trajectory is. Returns the exit code for that outcome.
 */
export function reportCompletion(
  completion: RLMChatCompletion,
  { io, json, quiet, hints, resumeCommand, outputSchemaFile }: ReportCompletionOptions,
): ExitCode {
  const exitCode = exitCodeOf(completion);
  const { answer } = completion;
  if (json) io.stdout.write(`${JSON.stringify(completion, null, 2)}\n`);
  else if (answer !== null) io.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
  const trajectory =
    completion.trajectoryPath === null ? '' : `Trajectory: ${completion.trajectoryPath}\n`;
  const reset = resetText(completion.sandboxResets);
  if (exitCode === EXIT_CODES.answered) {
    if (!quiet) io.stderr.write(reset + trajectory);
    return exitCode;
  }
  const lines = [`rlm: ${endingLine(completion, { hints, outputSchemaFile })}`];
  if (reset !== '') lines.push(reset.trimEnd());
  if (answer === null && completion.partialAnswer !== null && !json && !quiet) {
    lines.push(`Its last response (not an answer):\n${indent(completion.partialAnswer)}`);
  }
  // A run checkpoints each turn it completes without an answer, so only a run that began a
  // second turn surely has a checkpoint: one stopped in its first turn has nothing to resume.
  if (
    resumeCommand !== undefined &&
    isResumableStatus(completion.status) &&
    completion.iterations > 1
  ) {
    const raise =
      completion.status === 'budget_exceeded' ? ' with a larger budget (e.g. --max-tokens N)' : '';
    lines.push(`Continue it${raise}: ${resumeCommand}`);
  }
  io.stderr.write(`${lines.join('\n')}\n${trajectory}`);
  return exitCode;
}

/** How a run that does not exit 0 ended; an answered one had sub-calls a budget refused. */
function endingLine(
  completion: RLMChatCompletion,
  options: { hints: ErrorHints; outputSchemaFile: string | undefined },
): string {
  return completion.status === 'completed' && completion.answer !== null
    ? answeredWithRefusals(completion.refusedCalls ?? 0)
    : endingOf(completion, options);
}

function endingOf(
  completion: RLMChatCompletion,
  { hints, outputSchemaFile }: { hints: ErrorHints; outputSchemaFile: string | undefined },
): string {
  if (completion.status === 'cancelled') return 'Cancelled.';
  const { error } = completion;
  if (completion.status === 'error' && error !== null) {
    return failureSentence(error.code, error.message, hints);
  }
  if (completion.status === 'max_iterations') {
    if (completion.answer === null && error?.code === 'executor.answer_refused') {
      const flag =
        outputSchemaFile === undefined ? '--output-schema' : `--output-schema ${outputSchemaFile}`;
      return `The run reached its iteration limit without an answer that matches ${flag}: ${error.message}`;
    }
    return completion.answer === null
      ? 'The run reached its iteration limit without a final answer (FINAL or FINAL_VAR).'
      : 'The run reached its iteration limit; the answer on stdout came from its extra answer-now turn.';
  }
  const reason = error === null ? '' : `: ${error.message.replace(/\.$/, '')}`;
  return `The run ended without an answer (${completion.status}${reason}).`;
}

/** Why an answered run did not exit 0: a budget refused some of its sub-calls. */
function answeredWithRefusals(refused: number): string {
  const calls = refused === 1 ? '1 sub-call' : `${refused} sub-calls`;
  return (
    `The run answered, but a budget refused ${calls} (never sent), so the answer may rest on ` +
    'part of the work; run it again with a larger budget (e.g. --max-tokens N).'
  );
}

/**
 * That the run's REPL was replaced by a fresh engine (`sandbox.reset`): whatever blocks had
 * defined before was lost; the model was told and went on, so the answer may rest on less.
 */
function resetText(resets: number | undefined): string {
  if (resets === undefined || resets === 0) return '';
  const times = resets === 1 ? 'once' : `${resets} times`;
  return (
    `rlm: The run's REPL was reset ${times} (sandbox.reset: a block ran past its limits in a ` +
    'call the sandbox could not interrupt); the variables defined before were lost and the model ' +
    'was told.\n'
  );
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
