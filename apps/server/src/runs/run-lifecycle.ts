import type { RunLease, RunStore } from '@rlm/memory';
import { capRunEvent, RlmError, type RunEvent } from '@rlm/protocol';
import type { Logger } from 'pino';
import type { ContextStore } from '../context-store.js';
import type { EventHub } from '../event-hub.js';
import type { RunEngine } from '../run-engine.js';
import type { RunMetrics } from '../run-metrics.js';
import { emptyOutcome, type RunOutcome, serverEndEvents } from '../run-outcome.js';
import type { ServerConfig } from '../server-config.js';
import type { ActiveRun } from './active-run.js';
import type { Coordinator } from './coordinator.js';
import type { RunQueue } from './run-queue.js';
import type { SubmitRunInput } from './submit-run-input.js';

/** What the lifecycle's steps share: the server's parts and the runs of this process. */
export interface RunLifecycle {
  readonly store: RunStore;
  readonly engine: RunEngine;
  readonly contexts: ContextStore;
  readonly hub: EventHub;
  readonly config: ServerConfig;
  readonly metrics: RunMetrics;
  readonly logger: Logger;
  readonly now: () => number;
  /** The runs queued or executing here, by id. */
  readonly active: Map<string, ActiveRun>;
  /** False once a shutdown began. */
  accepting: boolean;
  queue: RunQueue;
  coordinator: Coordinator;
}

/** Where a run's writes go: its id and the store (fenced by the run's lease in a cluster). */
export interface RunTarget {
  runId: string;
  store: RunStore;
}

/** Stores the run's events in order and wakes its streams. */
export async function persist(
  life: RunLifecycle,
  { runId, store }: RunTarget,
  events: readonly RunEvent[],
): Promise<void> {
  for (const event of events) {
    // The executor already caps what it emits; this covers the server's own events too.
    await store.appendEvent(runId, capRunEvent(event));
    life.metrics.observeEvent(event);
  }
  life.hub.notify(runId);
}

/** Tells streams here and on the other replicas that the run's status changed. */
export function announce(life: RunLifecycle, runId: string): void {
  life.hub.notify(runId);
  life.coordinator.announce(runId);
}

/** Adds the run to this process's queue; settles with how the run ends. */
export function enqueue(
  life: RunLifecycle,
  { runId, input, lease }: { runId: string; input: SubmitRunInput; lease?: RunLease | undefined },
): Promise<RunOutcome> {
  return new Promise<RunOutcome>((resolve) => {
    life.active.set(runId, {
      runId,
      input,
      controller: new AbortController(),
      resolve,
      started: false,
      cancelled: false,
      finished: Promise.resolve(),
      store: lease === undefined ? life.store : life.store.fenced(lease),
      ...(lease === undefined ? {} : { lease }),
    });
    life.queue.push(runId);
  });
}

/** The run no longer counts here: out of the active runs, its key's slot and its lease freed. */
export function release(life: RunLifecycle, run: ActiveRun): void {
  life.active.delete(run.runId);
  life.queue.unreserve(run.input.principal.keyId);
  life.coordinator.released(run);
}

export async function finish(
  life: RunLifecycle,
  run: ActiveRun,
  outcome: RunOutcome,
): Promise<void> {
  await run.store.updateRun(run.runId, { status: outcome.status, usage: outcome.usage });
  life.metrics.runFinished(outcome.status);
  release(life, run);
  announce(life, run.runId);
  run.resolve(outcome);
}

/** A run another replica took over: nothing more is written here, the run is not over. */
export function abandon(life: RunLifecycle, run: ActiveRun, reason: string): void {
  life.logger.warn({ runId: run.runId, reason }, 'run handed over: lease lost');
  release(life, run);
  run.resolve({
    ...emptyOutcome('interrupted'),
    error: { code: 'server.unavailable', message: reason },
  });
}

/** Stops a run whose lease is gone: its writes would be refused anyway. */
export function loseLease(life: RunLifecycle, runId: string, reason: string): void {
  const run = life.active.get(runId);
  if (run === undefined || run.lostLease !== undefined) return;
  run.lostLease = reason;
  run.controller.abort(
    new RlmError({
      code: 'server.unavailable',
      message: reason,
      details: { reason: 'lease lost' },
    }),
  );
}

/** Cancels a run active in this process; false when it is not here. */
export async function cancelHere(life: RunLifecycle, runId: string): Promise<boolean> {
  const run = life.active.get(runId);
  if (run === undefined) return false;
  if (run.started) {
    run.controller.abort(
      new RlmError({
        code: 'executor.cancelled',
        message: 'Cancelled by the API',
        details: {},
      }),
    );
    return true;
  }
  if (run.cancelled) return true;
  run.cancelled = true;
  life.queue.remove(runId);
  await persist(life, run, serverEndEvents(runId, { status: 'cancelled', at: life.now() }));
  await finish(life, run, emptyOutcome('cancelled'));
  return true;
}

/**
 * Whether the run writes a checkpoint after every turn: every `run`, which a restart, a replica
 * or `POST /v1/runs/:id/resume` may continue (chat and agent runs end with their request).
 */
export function checkpointed(input: SubmitRunInput): boolean {
  return input.kind === 'run';
}

/** Whether the next start would resume the run (chat and agent runs end with their request). */
export function resumable(life: RunLifecycle, input: SubmitRunInput): boolean {
  return input.kind === 'run' && life.config.onRestart === 'resume';
}
