import { RlmError, type RunEvent, type TrajectoryRecord } from '@rlm/protocol';
import { executorRunStore } from '../executor-run-store.js';
import { ownProfile } from '../own-profile.js';
import type { RunEngineInput } from '../run-engine.js';
import {
  emptyOutcome,
  outcomeFromCompletion,
  type RunOutcome,
  serverEndEvents,
} from '../run-outcome.js';
import type { ServerConfig } from '../server-config.js';
import { serverNotice } from '../unfinished-runs.js';
import type { ActiveRun } from './active-run.js';
import {
  abandon,
  announce,
  checkpointed,
  finish,
  loseLease,
  persist,
  type RunLifecycle,
  release,
} from './run-lifecycle.js';

/**
 * Starts the run the queue hands over (see `RunQueueOptions.start`); false when it no longer
 * waits to start.
 */
export function startRun(
  life: RunLifecycle,
  runId: string,
  track: (execution: Promise<void>) => Promise<void>,
): boolean {
  const run = life.active.get(runId);
  if (run === undefined || run.started) return false;
  run.started = true;
  run.finished = track(
    executeRun(life, run).catch((error: unknown) =>
      life.logger.error({ runId, err: error }, 'run bookkeeping failed'),
    ),
  );
  return true;
}

/** Executes the run to its end, recording what it emits, then finishes, suspends or abandons it. */
async function executeRun(life: RunLifecycle, run: ActiveRun): Promise<void> {
  const { logger, now } = life;
  const { runId } = run;
  let chain: Promise<void> = Promise.resolve();
  // Writes are chained so they keep their order; a reader only sees an event once stored. The
  // chain never rejects: a failed write is logged, and later writes still happen.
  const write = (what: string, task: () => Promise<unknown>) => {
    chain = chain.then(task).then(
      () => undefined,
      (error: unknown) => {
        if (RlmError.is(error, 'memory.lease_lost')) loseLease(life, runId, error.message);
        else logger.error({ runId, err: error }, `${what} not persisted`);
      },
    );
  };
  // Once a shutdown suspends the run, what the engine reports while winding down (its
  // cancellation) is not recorded: the run is not over, it continues at the next start.
  const quiet = () => run.suspendedBy !== undefined || run.lostLease !== undefined;
  const onEvent = (event: RunEvent) => {
    if (!quiet()) write('event', () => persist(life, run, [event]));
  };
  const onTrajectory = (record: TrajectoryRecord) => {
    if (!quiet()) write('trajectory record', () => run.store.appendTrajectory(runId, record));
  };
  let outcome: RunOutcome;
  try {
    await run.store.updateRun(runId, { status: 'running' });
    announce(life, runId);
    const result = await life.engine.run(await engineInput(life, run, { onEvent, onTrajectory }));
    outcome = outcomeFromCompletion(result);
  } catch (error) {
    if (RlmError.is(error, 'memory.lease_lost')) loseLease(life, runId, error.message);
    const info = RlmError.is(error)
      ? { code: error.code, message: error.message }
      : { code: 'server.internal', message: 'The run failed unexpectedly' };
    if (run.lostLease === undefined) logger.error({ runId, err: error }, 'run failed');
    outcome = { ...emptyOutcome('error'), error: info };
    for (const event of serverEndEvents(runId, { status: 'error', at: now(), error: info })) {
      onEvent(event);
    }
  }
  await chain;
  if (run.lostLease !== undefined) return abandon(life, run, run.lostLease);
  if (run.suspendedBy !== undefined) {
    await suspend(life, run, run.suspendedBy);
    return;
  }
  if (run.interruptedBy !== undefined) {
    const error = { code: 'server.unavailable', message: run.interruptedBy };
    await persist(life, run, serverEndEvents(runId, { status: 'interrupted', at: now(), error }));
    outcome = { ...outcome, status: 'interrupted', error };
  }
  await finish(life, run, outcome);
}

/**
 * A run a shutdown stopped: left `queued` with a notice. Alone, the next start resumes it; in
 * a cluster its lease is released, so another replica takes it over at once.
 */
async function suspend(life: RunLifecycle, run: ActiveRun, reason: string): Promise<void> {
  const { runId } = run;
  await persist(life, run, [serverNotice(runId, { at: life.now(), message: reason })]);
  await run.store.updateRun(runId, { status: 'queued' });
  release(life, run);
  announce(life, runId);
  await life.coordinator.gaveUp();
  run.resolve({
    ...emptyOutcome('interrupted'),
    error: { code: 'server.unavailable', message: reason },
  });
}

async function engineInput(
  life: RunLifecycle,
  run: ActiveRun,
  hooks: Pick<RunEngineInput, 'onEvent' | 'onTrajectory'>,
): Promise<RunEngineInput> {
  const { runId, input, controller } = run;
  const { systemPrompt, tools, recorded, resume, outputSchema, escalation } = input;
  return {
    runId,
    query: input.query,
    context: await life.contexts.load(input.contextId ?? ''),
    profileName: input.profileName,
    profile: profileNamed(life.config, input.profileName),
    budget: input.budget,
    signal: controller.signal,
    // Checkpoints cost a write per turn: only runs that can be continued get them.
    ...(checkpointed(input)
      ? { runStore: executorRunStore(run.store, { onCheckpoint: () => run.checkpointed?.() }) }
      : {}),
    ...hooks,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(tools === undefined ? {} : { tools }),
    ...(recorded === undefined ? {} : { recorded }),
    ...(resume === true ? { resume } : {}),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(escalation === undefined ? {} : { escalation }),
  };
}

/**
 * The profile a run names.
 * @throws RlmError `server.not_found` when the configuration has no such profile
 */
export function profileNamed(config: ServerConfig, name: string) {
  const profile = ownProfile(config, name);
  if (profile === undefined) {
    throw new RlmError({
      code: 'server.not_found',
      message: `No profile named ${name}`,
      details: { resource: 'profile', id: name },
    });
  }
  return profile;
}
