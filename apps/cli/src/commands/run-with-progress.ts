import { type ReplLanguage, type RLMChatCompletion, RlmError, type RunEvent } from '@rlm/protocol';
import type { CliIo } from '../cli-io.js';
import type { ProgressMode } from '../config/config-schema.js';
import { EXIT_CODES } from '../exit-code.js';
import { createProgressReporter } from '../render/progress-reporter.js';

/**
 * Runs one engine call (`rlm run` or `rlm resume`) with progress on stderr (a live tree, plain
 * lines for a log, or nothing) and Ctrl-C handling: the first cancels the
 * run (which still returns its completion) and shows how to continue it; the second exits at once
 * with 130.
 */
export async function runWithProgress(
  io: CliIo,
  {
    progress: mode,
    resumeCommand,
    checkpointed = false,
    repl,
  }: {
    /** `tree` (a live view), `plain` (lines for a log) or `none`. */
    progress: ProgressMode;
    /** Shown at the first Ctrl-C: a second one exits before the run can report anything. */
    resumeCommand?: string;
    /**
     * Whether the run already has a checkpoint (a resumed run does). Otherwise the way back is
     * offered only once the root's first turn has finished: before that there is nothing to resume.
     */
    checkpointed?: boolean;
    /** The run's REPL language, for a line while a Python interpreter loads. */
    repl?: ReplLanguage;
  },
  start: (signal: AbortSignal, onEvent: (event: RunEvent) => void) => Promise<RLMChatCompletion>,
): Promise<RLMChatCompletion> {
  const progress = await createProgressReporter({
    stream: io.stderr,
    mode,
    now: () => io.now(),
    color: mode === 'tree' && io.stderr.isTTY === true && io.env['NO_COLOR'] === undefined,
    repl,
  });
  const controller = new AbortController();
  let interrupts = 0;
  let resumable = checkpointed;
  const stopListening = io.onInterrupt(() => {
    interrupts += 1;
    if (interrupts > 1) io.exitNow(EXIT_CODES.cancelled);
    progress.note('Cancelling… (press Ctrl-C again to exit at once)');
    if (resumeCommand !== undefined) {
      progress.note(
        resumable
          ? `To continue it later: ${resumeCommand}`
          : 'Nothing to continue later: no turn has finished yet, so start it again with rlm run.',
      );
    }
    controller.abort(
      new RlmError({ code: 'executor.cancelled', message: 'Cancelled by Ctrl-C', details: {} }),
    );
  });
  try {
    return await start(controller.signal, (event) => {
      if (event.type === 'iteration-end' && event.depth === 0) resumable = true;
      progress.onEvent(event);
    });
  } finally {
    progress.stop();
    stopListening();
  }
}
