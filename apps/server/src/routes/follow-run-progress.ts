import type { RunStore } from '@rlm/memory';
import type { EventHub } from '../event-hub.js';
import type { RunOutcome } from '../run-outcome.js';
import { runProgressLine } from './run-progress-line.js';

const PAGE_SIZE = 500;

export interface FollowRunProgressOptions {
  store: RunStore;
  hub: EventHub;
  runId: string;
  /** How the run ends (the run executes in this process). */
  done: Promise<RunOutcome>;
  /** Quiet time after which `onIdle` is called (a keep-alive). */
  heartbeatMs: number;
  /** The client went away: stop following (the caller cancels the run). */
  signal: AbortSignal;
  /** New progress lines, several at once when events came in a burst. */
  onProgress: (text: string) => Promise<unknown>;
  onIdle: () => Promise<unknown>;
}

/**
 * Reports a run's progress while it works and resolves with how it ended. Events are read back
 * from the run store (as the run's SSE stream reads them), woken by the event hub, so what a
 * client is told is what was recorded; every event stored before the run ended is reported
 * before this resolves.
 */
export async function followRunProgress(options: FollowRunProgressOptions): Promise<RunOutcome> {
  const { store, hub, runId, done, heartbeatMs, signal, onProgress, onIdle } = options;
  let settled = false;
  const finished = done.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  let seq = 0;
  const drain = async () => {
    for (;;) {
      const page = await store.eventsAfter(runId, seq, { limit: PAGE_SIZE });
      let text = '';
      for (const stored of page) {
        seq = stored.seq;
        text += runProgressLine(stored.event) ?? '';
      }
      if (text !== '' && !signal.aborted) await onProgress(text);
      if (page.length < PAGE_SIZE) return;
    }
  };
  while (!signal.aborted) {
    const version = hub.version(runId);
    // The run's events are all stored before `done` settles: one more read after it sees them.
    const last = settled;
    await drain();
    if (last) break;
    const stopWaiting = new AbortController();
    const changed = await Promise.race([
      hub.waitForChange(runId, version, {
        timeoutMs: heartbeatMs,
        signal: AbortSignal.any([signal, stopWaiting.signal]),
      }),
      finished.then(() => true),
    ]);
    stopWaiting.abort();
    if (!changed && !settled && !signal.aborted) await onIdle();
  }
  return done;
}
