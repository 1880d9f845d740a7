import type { RunLease, RunRecord, RunStore } from '@rlm/memory';
import {
  capRunEvent,
  type JsonValue,
  RlmError,
  type RunEvent,
  type TrajectoryRecord,
} from '@rlm/protocol';
import type { Logger } from 'pino';
import { allEvents } from './all-events.js';
import type { Principal } from './api-key-store.js';
import { startClusterLoops } from './cluster/cluster-loops.js';
import { createPendingClaims, type PendingClaim } from './cluster/pending-claims.js';
import type { RunCoordinator } from './cluster/run-coordinator.js';
import type { ContextMeta, ContextStore } from './context-store.js';
import type { EventHub } from './event-hub.js';
import { executorRunStore } from './executor-run-store.js';
import { newRunId } from './new-run-id.js';
import { ownProfile } from './own-profile.js';
import type { EffectiveBudget, EngineTool, RunEngine, RunEngineInput } from './run-engine.js';
import { type RunMeta, runMetaSchema } from './run-meta.js';
import type { RunMetrics } from './run-metrics.js';
import {
  emptyOutcome,
  outcomeFromCompletion,
  outcomeFromEvents,
  type RunOutcome,
  serverEndEvents,
} from './run-outcome.js';
import type { ServerConfig } from './server-config.js';
import { type StoppableRun, stopForShutdown } from './stop-for-shutdown.js';
import { restartMessage, restartPlan, serverNotice, unfinishedRuns } from './unfinished-runs.js';

/** What starts a run: the caller, the query, a stored context and the run's settings. */
export interface SubmitRunInput {
  /** The run's id when the caller needs it before the run starts (see `newRunId`). @default a new id */
  runId?: string;
  principal: Principal;
  kind: RunMeta['kind'];
  query: string;
  /** A stored context; or give `inlineContext` and the manager stores it once the run is admitted. */
  contextId?: string;
  /** A context given in the request, stored only after every limit check has passed. */
  inlineContext?: JsonValue;
  profileName: string;
  budget: EffectiveBudget;
  agentId?: string;
  /** A restarted run: the trajectory of its earlier attempt (see `RunEngineInput.recorded`). */
  recorded?: readonly TrajectoryRecord[];
  /** A restarted run with a checkpoint: continue from it (see `RunEngineInput.resume`). */
  resume?: boolean;
  /** Agent turns: the layered system prompt and the REPL tools of this turn. */
  systemPrompt?: string;
  tools?: Readonly<Record<string, EngineTool>>;
  /** The JSON Schema the answer must match (kept in the run's metadata). */
  outputSchema?: Readonly<Record<string, JsonValue>>;
}

/** A submitted run: its stored record and a promise of how it ends. */
export interface SubmittedRun {
  record: RunRecord;
  /**
   * How the run ends, when it executes in this process. A `run` submitted to a replica waits on
   * the shared queue and may execute on another replica: its `done` never settles (follow its
   * events instead); chat and agent runs always execute where they were submitted.
   */
  done: Promise<RunOutcome>;
}

export interface RunManager {
  /**
   * Persists the run as `queued` and schedules it. Every limit is checked before anything is
   * written: an `inlineContext` is stored only once the run is admitted, and a submission that
   * fails leaves no context and no run behind.
   * @throws RlmError `server.rate_limited` (per-key concurrent runs, full queue),
   *   `server.unavailable` while shutting down
   */
  submit(input: SubmitRunInput): Promise<SubmittedRun>;
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

interface ActiveRun extends StoppableRun {
  input: SubmitRunInput;
  resolve: (outcome: RunOutcome) => void;
  started: boolean;
  /** Set once a queued run is being cancelled, so a second cancel does nothing. */
  cancelled: boolean;
  /** Where the run's writes go: in a cluster, fenced by its lease. */
  store: RunStore;
  /** This replica's claim on the run (cluster only). */
  lease?: RunLease;
  /** Set once the lease is lost: another replica has the run, and nothing more is written here. */
  lostLease?: string;
}

/** Creates the run manager: global concurrency with a FIFO queue, per-key limits, persistence. */
export function createRunManager(options: RunManagerOptions): RunManager {
  const {
    store,
    engine,
    contexts,
    hub,
    config,
    metrics,
    logger,
    coordinator,
    now = Date.now,
  } = options;
  const active = new Map<string, ActiveRun>();
  const queue: string[] = [];
  const perKey = new Map<string, number>();
  let running = 0;
  let accepting = true;
  /** Submissions past the limit checks whose run is still being stored. */
  let storing = 0;
  /** Cluster: runs claimed here and not executing (yet); their leases are renewed too. */
  const claims = createPendingClaims({ store, logger });

  function reserve(keyId: string): void {
    perKey.set(keyId, (perKey.get(keyId) ?? 0) + 1);
  }

  function unreserve(keyId: string): void {
    const count = (perKey.get(keyId) ?? 1) - 1;
    if (count <= 0) perKey.delete(keyId);
    else perKey.set(keyId, count);
  }

  async function persist(
    runId: string,
    events: readonly RunEvent[],
    target: RunStore = store,
  ): Promise<void> {
    for (const event of events) {
      // The executor already caps what it emits; this covers the server's own events too.
      await target.appendEvent(runId, capRunEvent(event));
      metrics.observeEvent(event);
    }
    hub.notify(runId);
  }

  /** Tells streams here and on the other replicas that the run's status changed. */
  function announce(runId: string): void {
    hub.notify(runId);
    void coordinator
      ?.announce(runId)
      .catch((error: unknown) => logger.warn({ runId, err: error }, 'announce failed'));
  }

  function release(run: ActiveRun, runId: string): void {
    active.delete(runId);
    unreserve(run.input.principal.keyId);
    const lease = run.lease;
    // With the claim's log line, the record of which replica held the run when. A lost lease
    // stopped counting at its expiry: no write of this replica could land after it.
    if (lease !== undefined) {
      const lost =
        run.lostLease === undefined ? {} : { lostLease: true, expiredAt: lease.expiresAt };
      logger.info({ runId, epoch: lease.epoch, ...lost }, 'run released');
    }
    if (lease !== undefined && run.lostLease === undefined) {
      void store
        .releaseLease(lease)
        .catch((error: unknown) => logger.warn({ runId, err: error }, 'lease release failed'));
    }
  }

  async function finish(runId: string, run: ActiveRun, outcome: RunOutcome): Promise<void> {
    await run.store.updateRun(runId, { status: outcome.status, usage: outcome.usage });
    metrics.runFinished(outcome.status);
    release(run, runId);
    announce(runId);
    run.resolve(outcome);
  }

  /** A run another replica took over: nothing more is written here, the run is not over. */
  function abandon(runId: string, run: ActiveRun, reason: string): void {
    logger.warn({ runId, reason }, 'run handed over: lease lost');
    release(run, runId);
    run.resolve({
      ...emptyOutcome('interrupted'),
      error: { code: 'server.unavailable', message: reason },
    });
  }

  /** Stops a run whose lease is gone: its writes would be refused anyway. */
  function loseLease(runId: string, reason: string): void {
    const run = active.get(runId);
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

  async function execute(runId: string, run: ActiveRun): Promise<void> {
    let chain: Promise<void> = Promise.resolve();
    // Writes are chained so they keep their order; a reader only sees an event once stored. The
    // chain never rejects: a failed write is logged, and later writes still happen.
    const write = (what: string, task: () => Promise<unknown>) => {
      chain = chain.then(task).then(
        () => undefined,
        (error: unknown) => {
          if (RlmError.is(error, 'memory.lease_lost')) loseLease(runId, error.message);
          else logger.error({ runId, err: error }, `${what} not persisted`);
        },
      );
    };
    // Once a shutdown suspends the run, what the engine reports while winding down (its
    // cancellation) is not recorded: the run is not over, it continues at the next start.
    const quiet = () => run.suspendedBy !== undefined || run.lostLease !== undefined;
    const onEvent = (event: RunEvent) => {
      if (!quiet()) write('event', () => persist(runId, [event], run.store));
    };
    const onTrajectory = (record: TrajectoryRecord) => {
      if (!quiet()) write('trajectory record', () => run.store.appendTrajectory(runId, record));
    };
    let outcome: RunOutcome;
    try {
      await run.store.updateRun(runId, { status: 'running' });
      announce(runId);
      const result = await engine.run(await engineInput(runId, run, { onEvent, onTrajectory }));
      outcome = outcomeFromCompletion(result);
    } catch (error) {
      if (RlmError.is(error, 'memory.lease_lost')) loseLease(runId, error.message);
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
    if (run.lostLease !== undefined) return abandon(runId, run, run.lostLease);
    if (run.suspendedBy !== undefined) {
      await suspend(runId, run, run.suspendedBy);
      return;
    }
    if (run.interruptedBy !== undefined) {
      const error = { code: 'server.unavailable', message: run.interruptedBy };
      await persist(
        runId,
        serverEndEvents(runId, { status: 'interrupted', at: now(), error }),
        run.store,
      );
      outcome = { ...outcome, status: 'interrupted', error };
    }
    await finish(runId, run, outcome);
  }

  /**
   * A run a shutdown stopped: left `queued` with a notice. Alone, the next start resumes it; in
   * a cluster its lease is released, so another replica takes it over at once.
   */
  async function suspend(runId: string, run: ActiveRun, reason: string): Promise<void> {
    await persist(runId, [serverNotice(runId, { at: now(), message: reason })], run.store);
    await run.store.updateRun(runId, { status: 'queued' });
    release(run, runId);
    announce(runId);
    await coordinator?.wakeWorkers().catch(() => undefined);
    run.resolve({
      ...emptyOutcome('interrupted'),
      error: { code: 'server.unavailable', message: reason },
    });
  }

  async function engineInput(
    runId: string,
    run: ActiveRun,
    hooks: Pick<RunEngineInput, 'onEvent' | 'onTrajectory'>,
  ): Promise<RunEngineInput> {
    const { input, controller } = run;
    const { systemPrompt, tools, recorded, resume, outputSchema } = input;
    return {
      runId,
      query: input.query,
      context: await contexts.load(input.contextId ?? ''),
      profileName: input.profileName,
      profile: profileNamed(input.profileName),
      budget: input.budget,
      signal: controller.signal,
      // Checkpoints cost a write per turn: only runs a restart can resume get them.
      ...(resumable(input)
        ? { runStore: executorRunStore(run.store, { onCheckpoint: () => run.checkpointed?.() }) }
        : {}),
      ...hooks,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(tools === undefined ? {} : { tools }),
      ...(recorded === undefined ? {} : { recorded }),
      ...(resume === true ? { resume } : {}),
      ...(outputSchema === undefined ? {} : { outputSchema }),
    };
  }

  function profileNamed(name: string) {
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

  function pump(): void {
    while (running < config.limits.globalConcurrency && queue.length > 0) {
      const runId = queue.shift() as string;
      const run = active.get(runId);
      if (run === undefined || run.started) continue;
      run.started = true;
      running += 1;
      run.finished = execute(runId, run)
        .catch((error: unknown) => logger.error({ runId, err: error }, 'run bookkeeping failed'))
        .finally(() => {
          running -= 1;
          pump();
          loops?.wake();
        });
    }
  }

  /** Whether the next start would resume the run (chat and agent runs end with their request). */
  function resumable(input: SubmitRunInput): boolean {
    return input.kind === 'run' && config.onRestart === 'resume';
  }

  function enqueue(runId: string, input: SubmitRunInput, lease?: RunLease): Promise<RunOutcome> {
    return new Promise<RunOutcome>((resolve) => {
      active.set(runId, {
        input,
        controller: new AbortController(),
        resolve,
        started: false,
        cancelled: false,
        finished: Promise.resolve(),
        store: lease === undefined ? store : store.fenced(lease),
        ...(lease === undefined ? {} : { lease }),
      });
      queue.push(runId);
      pump();
    });
  }

  /**
   * Continues an unfinished run found in the store (at start-up, or in a cluster when its
   * replica died or gave it up): resumed from its checkpoint when it can be, else interrupted.
   * In a cluster `claim` is this replica's fresh claim on it, handed over with a resumed run.
   */
  async function takeUp(
    record: RunRecord,
    message: (checkpointTurn: number | undefined, recordedCalls: number) => string,
    claim?: PendingClaim,
  ): Promise<'resumed' | 'interrupted' | 'ended' | 'declined'> {
    const target = claim === undefined ? store : store.fenced(claim.lease);
    const events = await allEvents(store, record.id);
    // A holder that died between its run-end event and the status: the run did end.
    const ended = outcomeFromEvents(events);
    if (ended !== undefined) {
      await target.updateRun(record.id, { status: ended.status, usage: ended.usage });
      metrics.runFinished(ended.status);
      return 'ended';
    }
    const plan = await restartPlan(record, { config, contexts });
    if ('rerun' in plan) {
      const { owner, query, contextId, profile, budget, outputSchema } = plan.rerun;
      const checkpoint = await store.latestCheckpoint(record.id);
      const recorded = await store.trajectory(record.id);
      const calls = recorded.filter((item) => item.kind === 'model-exchange').length;
      // In a cluster a run that never started (fresh off the queue) just starts: its normal path.
      if (claim === undefined || events.length > 0) {
        const notice = serverNotice(record.id, {
          at: now(),
          message: message(checkpoint?.turn, calls),
        });
        await persist(record.id, [notice], target);
      }
      if (claim?.lost !== undefined) throw claimLost(claim);
      // Draining since the claim (a shutdown): the run is left to another replica, at once.
      if (claim !== undefined && !accepting) return 'declined';
      // From here on the run and its lease are the run queue's (no await until enqueued).
      if (claim !== undefined) claims.handOver(claim);
      reserve(owner);
      void enqueue(
        record.id,
        {
          principal: { keyId: owner, name: owner, role: 'user' },
          kind: 'run',
          query,
          contextId,
          profileName: profile,
          budget,
          recorded,
          ...(checkpoint === undefined ? {} : { resume: true }),
          ...(outputSchema === undefined ? {} : { outputSchema }),
        },
        claim?.lease,
      );
      return 'resumed';
    }
    const error = {
      code: 'server.unavailable',
      message: `${claim === undefined ? 'the server restarted' : 'the replica executing the run stopped'}; ${plan.reason}`,
    };
    await persist(
      record.id,
      serverEndEvents(record.id, { status: 'interrupted', at: now(), error }),
      target,
    );
    await target.updateRun(record.id, { status: 'interrupted' });
    metrics.runFinished('interrupted');
    return 'interrupted';
  }

  /**
   * Cluster: claims `runId` and takes it up, unless another replica holds it, it has ended or it
   * was deleted.
   */
  async function takeOver(runId: string): Promise<void> {
    if (coordinator === undefined || active.has(runId) || claims.get(runId) !== undefined) return;
    const lease = await coordinator.claim(runId).catch((error: unknown) => {
      // Deleted since its job was sent (a chat run's watchdog outlives the run): nothing to do,
      // and the job is done, instead of failing and coming back until its retries run out.
      if (error instanceof RlmError && error.code === 'memory.not_found') return undefined;
      throw error;
    });
    if (lease === undefined) return;
    logger.info({ runId, epoch: lease.epoch }, 'run claimed');
    // Every path from here hands the run to the queue or releases the claim, and logs either.
    const claim = claims.hold(lease);
    let result: Awaited<ReturnType<typeof takeUp>> | 'gone' = 'gone';
    try {
      const record = await store.getRun(runId);
      if (record === undefined || !['queued', 'running'].includes(record.status)) return;
      result = await takeUp(
        record,
        (turn, calls) =>
          restartMessage(record.status, {
            checkpointTurn: turn,
            recordedCalls: calls,
            takenOver: true,
          }),
        claim,
      );
    } catch (error) {
      // The lease lapsed and another replica claimed the run: it continues it, nothing to undo.
      if (!RlmError.is(error, 'memory.lease_lost')) throw error;
      claim.lost ??= error.message;
      logger.warn({ runId, reason: claim.lost }, 'run handed over: lease lost');
    } finally {
      if (result !== 'resumed') await claims.release(claim);
    }
    if (result === 'ended' || result === 'interrupted') announce(runId);
    if (result === 'declined') await coordinator.wakeWorkers().catch(() => undefined);
  }

  /** Routes a heartbeat's renewal to the run or the pending claim it belongs to. */
  function renewed(runId: string, lease: RunLease): void {
    const run = active.get(runId);
    if (run !== undefined) run.lease = lease;
    else {
      const claim = claims.get(runId);
      if (claim !== undefined) claim.lease = lease;
    }
  }

  /** Routes a heartbeat's news of a lost lease the same way. */
  function lost(runId: string, reason: string): void {
    const claim = active.has(runId) ? undefined : claims.get(runId);
    if (claim === undefined) loseLease(runId, reason);
    else claim.lost ??= reason;
  }

  const loops =
    coordinator === undefined
      ? undefined
      : startClusterLoops({
          coordinator,
          logger,
          pollMs: coordinator.pollMs,
          freeSlots: () =>
            accepting ? config.limits.globalConcurrency - running - queue.length : 0,
          takeOver,
          leases: () =>
            [...active.entries()].flatMap(([runId, run]) =>
              run.lease === undefined || run.lostLease !== undefined
                ? []
                : [{ runId, lease: run.lease }],
            ),
          claims: () => claims.leases(),
          renewed,
          lost,
          cancel: (runId) => {
            void cancelHere(runId);
          },
          renew: (lease) => coordinator.renew(lease),
        });

  /** Cancels a run active in this process; false when it is not here. */
  async function cancelHere(runId: string): Promise<boolean> {
    const run = active.get(runId);
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
    const index = queue.indexOf(runId);
    if (index >= 0) queue.splice(index, 1);
    await persist(runId, serverEndEvents(runId, { status: 'cancelled', at: now() }), run.store);
    await finish(runId, run, emptyOutcome('cancelled'));
    return true;
  }

  /**
   * Cluster: cancels a run this replica does not execute. With nobody holding it (queued), this
   * replica claims it and ends it; otherwise its holder is asked to, through the database.
   */
  async function cancelElsewhere(runId: string): Promise<boolean> {
    if (coordinator === undefined) return false;
    const lease = await coordinator.claim(runId);
    if (lease === undefined) {
      await coordinator.requestCancel(runId);
      return true;
    }
    logger.info({ runId, epoch: lease.epoch }, 'run claimed');
    const claim = claims.hold(lease);
    try {
      const record = await store.getRun(runId);
      if (record === undefined || !['queued', 'running'].includes(record.status)) return false;
      const fenced = store.fenced(lease);
      await persist(runId, serverEndEvents(runId, { status: 'cancelled', at: now() }), fenced);
      await fenced.updateRun(runId, { status: 'cancelled' });
      metrics.runFinished('cancelled');
      return true;
    } catch (error) {
      if (RlmError.is(error, 'memory.lease_lost')) claim.lost ??= error.message;
      throw error;
    } finally {
      await claims.release(claim);
      announce(runId);
    }
  }
  return {
    async submit(input) {
      if (!accepting) {
        throw new RlmError({
          code: 'server.unavailable',
          message: 'The server is shutting down and accepts no new runs',
          details: { reason: 'shutting down' },
        });
      }
      const keyId = input.principal.keyId;
      // In a cluster the database counts every replica's runs (see RunCoordinator.admit).
      if (coordinator === undefined) {
        if ((perKey.get(keyId) ?? 0) >= config.limits.concurrentRunsPerKey) {
          throw rateLimited(
            'concurrent_runs',
            `This key already has ${config.limits.concurrentRunsPerKey} runs queued or running`,
          );
        }
        if (queue.length + storing >= config.limits.queueSize) {
          throw rateLimited('queue', 'The run queue is full');
        }
      }
      // The slot is taken before the first await, so concurrent submissions cannot all pass the
      // checks above and overshoot the limits.
      reserve(keyId);
      storing += 1;
      const runId = input.runId ?? newRunId();
      const queued = coordinator !== undefined && input.kind === 'run';
      let record: RunRecord;
      let stored: ContextMeta | undefined;
      let admitted: SubmitRunInput;
      let lease: RunLease | undefined;
      try {
        if (input.inlineContext !== undefined) {
          stored = await contexts.saveValue(input.inlineContext, { owner: keyId, pending: true });
        }
        const contextId = stored?.id ?? input.contextId;
        if (contextId === undefined) throw new Error('submit: expected contextId or inlineContext');
        admitted = { ...input, contextId, inlineContext: undefined };
        const meta: RunMeta = runMetaSchema.parse({
          kind: input.kind,
          owner: keyId,
          query: input.query,
          contextId,
          profile: input.profileName,
          model: profileNamed(input.profileName).model,
          budget: input.budget,
          agentId: input.agentId ?? null,
          ...(input.outputSchema === undefined ? {} : { outputSchema: input.outputSchema }),
          contextOwned: stored !== undefined,
        });
        const pendingContextId = stored?.id;
        record = await store.createRun(
          { id: runId, status: 'queued', owner: keyId, config: meta },
          coordinator === undefined
            ? {}
            : {
                inTransaction: (sql) =>
                  coordinator.admit(sql, { runId, keyId, queued, pendingContextId }),
              },
        );
        if (stored !== undefined) await contexts.commit(stored);
        // A chat or agent run executes here, where its request waits: claimed at once.
        if (coordinator !== undefined && !queued) {
          lease = await coordinator.claim(runId);
          if (lease === undefined)
            throw new Error(`submit: the new run ${runId} was claimed elsewhere`);
          logger.info({ runId, epoch: lease.epoch }, 'run claimed');
        }
      } catch (error) {
        unreserve(keyId);
        if (stored !== undefined) await contexts.remove(stored.id);
        throw error;
      } finally {
        storing -= 1;
      }
      hub.notify(runId);
      if (queued) {
        // The queue holds the run now; whichever replica claims it executes it.
        unreserve(keyId);
        loops?.wake();
        return { record, done: new Promise<RunOutcome>(() => undefined) };
      }
      return { record, done: enqueue(runId, admitted, lease) };
    },
    async cancel(runId) {
      return (await cancelHere(runId)) || cancelElsewhere(runId);
    },
    stats() {
      return { queued: queue.length, running };
    },
    isActive(runId) {
      return active.has(runId);
    },
    async recover() {
      const requeued: string[] = [];
      const interrupted: string[] = [];
      // In a cluster nothing is taken at start-up: runs are taken over as their leases lapse.
      if (coordinator !== undefined) return { requeued, interrupted };
      for (const record of await unfinishedRuns(store)) {
        const result = await takeUp(record, (turn, calls) =>
          restartMessage(record.status, { checkpointTurn: turn, recordedCalls: calls }),
        );
        if (result === 'resumed') requeued.push(record.id);
        else if (result === 'interrupted') interrupted.push(record.id);
      }
      return { requeued, interrupted };
    },
    async shutdown(graceMs) {
      accepting = false;
      loops?.stopTaking();
      // Queued runs stay `queued` in the store: the next start (or another replica) runs them.
      for (const runId of queue.splice(0)) {
        const run = active.get(runId);
        if (run !== undefined) release(run, runId);
      }
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      const inFlight = [...active.values()].filter((run) => run.started);
      await Promise.all(
        inFlight.map((run) =>
          stopForShutdown(run, { graceOver, graceMs, resumable: resumable(run.input) }),
        ),
      );
      clearTimeout(timer);
      await loops?.close();
      await coordinator?.wakeWorkers().catch(() => undefined);
    },
  };
}

function rateLimited(
  limit: 'concurrent_runs' | 'queue',
  message: string,
): RlmError<'server.rate_limited'> {
  return new RlmError({
    code: 'server.rate_limited',
    message,
    details: { retryAfterMs: 1000, limit },
  });
}

/** A claim lost while its run was taken up, before anything was written under it. */
function claimLost(claim: PendingClaim): RlmError<'memory.lease_lost'> {
  return new RlmError({
    code: 'memory.lease_lost',
    message: `The claim on run ${JSON.stringify(claim.runId)} (epoch ${claim.lease.epoch}) was lost while taking the run up: ${claim.lost}`,
    details: { runId: claim.runId, holder: claim.lease.holder },
  });
}
