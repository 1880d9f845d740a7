import { type RLMChatCompletion, RlmError, type RunEvent } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-code.js';
import { createProgressReporter, type ProgressMode } from '../render/progress-reporter.js';

/**
 * Runs one engine call (`rlm run` or `rlm resume`) with progress on stderr (a live tree on a
 * terminal, plain lines otherwise, nothing when quiet) and Ctrl-C handling: the first cancels the
 * run (which still returns its completion) and shows how to continue it; the second exits at once
 * with 130.
 */
export async function runWithProgress(
  io: CliIo,
  {
    quiet,
    resumeCommand,
  }: {
    quiet: boolean;
    /** Shown at the first Ctrl-C: a second one exits before the run can report anything. */
    resumeCommand?: string;
  },
  start: (signal: AbortSignal, onEvent: (event: RunEvent) => void) => Promise<RLMChatCompletion>,
): Promise<RLMChatCompletion> {
  const mode: ProgressMode = quiet ? 'quiet' : io.stderr.isTTY === true ? 'tty' : 'plain';
  const progress = createProgressReporter({
    stream: io.stderr,
    mode,
    now: () => io.now(),
    color: mode === 'tty' && io.env['NO_COLOR'] === undefined,
  });
  const controller = new AbortController();
  let interrupts = 0;
  const stopListening = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts > 1) io.exitNow(EXIT_CODES.cancelled);
    progress.note('Cancelling… (press Ctrl-C again to exit at once)');
    if (resumeCommand !== undefined) progress.note(`To continue it later: ${resumeCommand}`);
    controller.abort(
      new RlmError({ code: 'executor.cancelled', message: 'Cancelled by Ctrl-C', details: {} }),
    );
  });
  try {
    return await start(controller.signal, (event) => progress.onEvent(event));
  } finally {
    progress.stop();
    stopListening();
  }
}
