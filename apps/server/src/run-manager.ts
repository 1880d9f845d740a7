import type { RunRecord, RunStore } from '@rlm/memory';
import type { Logger } from 'pino';
import type { RunCoordinator } from './cluster/run-coordinator.js';
import type { ContextStore } from './context-store.js';
import type { EventHub } from './event-hub.js';
import type { EffectiveBudget, RunEngine } from './run-engine.js';
import type { RunMeta } from './run-meta.js';
import type { RunMetrics } from './run-metrics.js';
import { startRun } from './runs/execute-run.js';
import { createInProcessCoordinator } from './runs/in-process-coordinator.js';
import { createPostgresCoordinator } from './runs/postgres-coordinator.js';
import { resumeEndedRun, resumeRefusal } from './runs/resume-ended-run.js';
import { cancelHere, type RunLifecycle, release, resumable } from './runs/run-lifecycle.js';
import { createRunQueue } from './runs/run-queue.js';
import { submitRun } from './runs/submit-run.js';
import type { SubmitRunInput, SubmittedRun } from './runs/submit-run-input.js';
import type { ServerConfig } from './server-config.js';
import { stopForShutdown } from './stop-for-shutdown.js';

export type { SubmitRunInput, SubmittedRun } from './runs/submit-run-input.js';

export interface RunManager {
  /**
   * Persists the run as `queued` and schedules it. Every limit is checked before anything is
   * written: an `inlineContext` is stored only once the run is admitted, and a submission that
   * fails leaves no context and no run behind.
   * @throws RlmError `server.rate_limited` (per-key concurrent runs, full queue),
   *   `server.unavailable` while shutting down
   */
  submit(input: SubmitRunInput): Promise<SubmittedRun>;
  /**
   * Continues an ended run from its latest checkpoint with `budget`, executing it here (see
   * `resumeEndedRun`); resolves with its record, `queued` again.
   * @throws RlmError `server.conflict` naming why it cannot be resumed, `server.rate_limited`,
   *   `server.unavailable` while shutting down
   */
  resume(target: { record: RunRecord; meta: RunMeta; budget: EffectiveBudget }): Promise<RunRecord>;
  /** Why `resume` would refuse the run; undefined when it would continue it. */
  resumeRefusal(record: RunRecord): Promise<string | undefined>;
  /** Cancels a queued or running run; false when it is not active in this process. */
  cancel(runId: string): Promise<boolean>;
  stats(): { queued: number; running: number };
  /** Whether the run is queued or running in this process (cheap: no store read). */
  isActive(runId: string): boolean;
  /**
   * Start-up: re-queues runs found `queued`/`running` (to resume from their latest checkpoint, or
   * to start over when they have none), or marks them `interrupted`.
   */
  recover(): Promise<{ requeued: string[]; interrupted: string[] }>;
  /**
   * Stops accepting runs. Resumable runs are stopped at the end of their current turn (once its
   * checkpoint is saved) or when `graceMs` is over, and left `queued` for the next start; other
   * runs get `graceMs` to finish and are interrupted after it.
   */
  shutdown(graceMs: number): Promise<void>;
}

export interface RunManagerOptions {
  store: RunStore;
  engine: RunEngine;
  contexts: ContextStore;
  hub: EventHub;
  config: ServerConfig;
  metrics: RunMetrics;
  logger: Logger;
  now?: () => number;
  /**
   * Present when the server is one of several replicas on Postgres: runs are admitted and
   * queued in the database, executed under a lease, and taken over when a replica dies.
   */
  coordinator?: RunCoordinator;
}

/**
 * Creates the run manager: a FIFO queue with global and per-key limits (`runs/run-queue.ts`), the
 * run lifecycle (`runs/`: submit, execute, finish, suspend, cancel, take up) and a coordinator
 * for where runs execute: this process alone, or replicas on Postgres when `coordinator` is given.
 */
export function createRunManager(options: RunManagerOptions): RunManager {
  const life: RunLifecycle = {
    store: options.store,
    engine: options.engine,
    contexts: options.contexts,
    hub: options.hub,
    config: options.config,
    metrics: options.metrics,
    logger: options.logger,
    now: options.now ?? Date.now,
    active: new Map(),
    accepting: true,
    // Set below: the queue and the coordinator both act on the lifecycle.
    queue: undefined as never,
    coordinator: undefined as never,
  };
  life.queue = createRunQueue({
    limits: options.config.limits,
    start: (runId, track) => startRun(life, runId, track),
    onSlotFree: () => life.coordinator.slotFree(),
  });
  life.coordinator =
    options.coordinator === undefined
      ? createInProcessCoordinator(life)
      : createPostgresCoordinator(life, options.coordinator);
  return {
    submit: (input) => submitRun(life, input),
    async cancel(runId) {
      return (await cancelHere(life, runId)) || life.coordinator.cancelElsewhere(runId);
    },
    resume: (target) => resumeEndedRun(life, target),
    resumeRefusal: (record) => resumeRefusal(life, record),
    stats: () => life.queue.stats(),
    isActive: (runId) => life.active.has(runId),
    recover: () => life.coordinator.recover(),
    shutdown: (graceMs) => shutdown(life, graceMs),
  };
}

async function shutdown(life: RunLifecycle, graceMs: number): Promise<void> {
  life.accepting = false;
  life.coordinator.stopTaking();
  // Queued runs stay `queued` in the store: the next start (or another replica) runs them.
  for (const runId of life.queue.drain()) {
    const run = life.active.get(runId);
    if (run !== undefined) release(life, run);
  }
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  const inFlight = [...life.active.values()].filter((run) => run.started);
  await Promise.all(
    inFlight.map((run) =>
      stopForShutdown(run, { graceOver, graceMs, resumable: resumable(life, run.input) }),
    ),
  );
  clearTimeout(timer);
  await life.coordinator.close();
}
