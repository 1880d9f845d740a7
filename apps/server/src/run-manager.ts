import { randomBytes } from 'node:crypto';
import type { RunRecord, RunStore } from '@rlm/memory';
import { RlmError, type RunEvent, type TrajectoryRecord } from '@rlm/protocol';
import type { Logger } from 'pino';
import type { Principal } from './api-key-store.js';
import type { ContextStore } from './context-store.js';
import type { EventHub } from './event-hub.js';
import type { EffectiveBudget, EngineTool, RunEngine, RunEngineInput } from './run-engine.js';
import { type RunMeta, runMetaSchema } from './run-meta.js';
import type { RunMetrics } from './run-metrics.js';
import {
  emptyOutcome,
  outcomeFromCompletion,
  type RunOutcome,
  serverEndEvents,
} from './run-outcome.js';
import type { ServerConfig } from './server-config.js';
import { restartNotice, unfinishedRuns } from './unfinished-runs.js';

/** What starts a run: the caller, the query, a stored context and the run's settings. */
export interface SubmitRunInput {
  principal: Principal;
  kind: RunMeta['kind'];
  query: string;
  contextId: string;
  profileName: string;
  budget: EffectiveBudget;
  agentId?: string;
  /** A restarted run: the trajectory of its earlier attempt (see `RunEngineInput.recorded`). */
  recorded?: readonly TrajectoryRecord[];
  /** Agent turns: the layered system prompt and the REPL tools of this turn. */
  systemPrompt?: string;
  tools?: Readonly<Record<string, EngineTool>>;
}

/** A submitted run: its stored record and a promise of how it ends. */
export interface SubmittedRun {
  record: RunRecord;
  done: Promise<RunOutcome>;
}

export interface RunManager {
  /**
   * Persists the run as `queued` and schedules it.
   * @throws RlmError `server.rate_limited` (per-key concurrent runs, full queue),
   *   `server.unavailable` while shutting down
   */
  submit(input: SubmitRunInput): Promise<SubmittedRun>;
  /** Cancels a queued or running run; false when it is not active in this process. */
  cancel(runId: string): Promise<boolean>;
  stats(): { queued: number; running: number };
  /** Whether the run is queued or running in this process (cheap: no store read). */
  isActive(runId: string): boolean;
  /** Start-up: re-queues runs found `queued`/`running`, or marks them `interrupted`. */
  recover(): Promise<{ requeued: string[]; interrupted: string[] }>;
  /** Stops accepting runs, waits up to `graceMs` for running ones, then interrupts the rest. */
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
}

interface ActiveRun {
  input: SubmitRunInput;
  controller: AbortController;
  /** Set when the run stopped because the server is shutting down. */
  interruptedBy?: string;
  resolve: (outcome: RunOutcome) => void;
  started: boolean;
  /** Set once a queued run is being cancelled, so a second cancel does nothing. */
  cancelled: boolean;
  finished: Promise<void>;
}

/** Creates the run manager: global concurrency with a FIFO queue, per-key limits, persistence. */
export function createRunManager(options: RunManagerOptions): RunManager {
  const { store, engine, contexts, hub, config, metrics, logger, now = Date.now } = options;
  const active = new Map<string, ActiveRun>();
  const queue: string[] = [];
  const perKey = new Map<string, number>();
  let running = 0;
  let accepting = true;
  /** Submissions past the limit checks whose run is still being stored. */
  let storing = 0;

  function reserve(keyId: string): void {
    perKey.set(keyId, (perKey.get(keyId) ?? 0) + 1);
  }

  function unreserve(keyId: string): void {
    const count = (perKey.get(keyId) ?? 1) - 1;
    if (count <= 0) perKey.delete(keyId);
    else perKey.set(keyId, count);
  }

  async function persist(runId: string, events: readonly RunEvent[]): Promise<void> {
    for (const event of events) {
      await store.appendEvent(runId, event);
      metrics.observeEvent(event);
    }
    hub.notify(runId);
  }

  function release(run: ActiveRun, runId: string): void {
    active.delete(runId);
    unreserve(run.input.principal.keyId);
  }

  async function finish(runId: string, run: ActiveRun, outcome: RunOutcome): Promise<void> {
    await store.updateRun(runId, { status: outcome.status, usage: outcome.usage });
    metrics.runFinished(outcome.status);
    release(run, runId);
    hub.notify(runId);
    run.resolve(outcome);
  }

  async function execute(runId: string, run: ActiveRun): Promise<void> {
    let chain: Promise<void> = Promise.resolve();
    // Writes are chained so they keep their order; a reader only sees an event once stored. The
    // chain never rejects: a failed write is logged, and later writes still happen.
    const write = (what: string, task: () => Promise<unknown>) => {
      chain = chain.then(task).then(
        () => undefined,
        (error: unknown) => logger.error({ runId, err: error }, `${what} not persisted`),
      );
    };
    const onEvent = (event: RunEvent) => write('event', () => persist(runId, [event]));
    const onTrajectory = (record: TrajectoryRecord) =>
      write('trajectory record', () => store.appendTrajectory(runId, record));
    let outcome: RunOutcome;
    try {
      await store.updateRun(runId, { status: 'running' });
      hub.notify(runId);
      const result = await engine.run(await engineInput(runId, run, { onEvent, onTrajectory }));
      outcome = outcomeFromCompletion(result);
    } catch (error) {
      const info = RlmError.is(error)
        ? { code: error.code, message: error.message }
        : { code: 'server.internal', message: 'The run failed unexpectedly' };
      logger.error({ runId, err: error }, 'run failed');
      outcome = { ...emptyOutcome('error'), error: info };
      for (const event of serverEndEvents(runId, { status: 'error', at: now(), error: info })) {
        onEvent(event);
      }
    }
    await chain;
    if (run.interruptedBy !== undefined) {
      const error = { code: 'server.unavailable', message: run.interruptedBy };
      await persist(runId, serverEndEvents(runId, { status: 'interrupted', at: now(), error }));
      outcome = { ...outcome, status: 'interrupted', error };
    }
    await finish(runId, run, outcome);
  }

  async function engineInput(
    runId: string,
    { input, controller }: ActiveRun,
    hooks: Pick<RunEngineInput, 'onEvent' | 'onTrajectory'>,
  ): Promise<RunEngineInput> {
    const { systemPrompt, tools, recorded } = input;
    return {
      runId,
      query: input.query,
      context: await contexts.load(input.contextId),
      profileName: input.profileName,
      profile: profileNamed(input.profileName),
      budget: input.budget,
      signal: controller.signal,
      ...hooks,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(tools === undefined ? {} : { tools }),
      ...(recorded === undefined ? {} : { recorded }),
    };
  }

  function profileNamed(name: string) {
    const profile = config.profiles[name];
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
        });
    }
  }

  /** Whether a run found unfinished at start-up can run again, or why it cannot. */
  async function restartPlan(record: RunRecord): Promise<{ rerun: RunMeta } | { reason: string }> {
    const meta = runMetaSchema.safeParse(record.config);
    if (!meta.success) return { reason: 'the run has no server metadata' };
    if (meta.data.kind !== 'run') {
      return {
        reason: `${meta.data.kind} runs belong to an HTTP request that ended with the process`,
      };
    }
    if (config.onRestart !== 'resume') return { reason: 'onRestart is "interrupt"' };
    if (config.profiles[meta.data.profile] === undefined) {
      return { reason: `profile "${meta.data.profile}" is no longer configured` };
    }
    if ((await contexts.meta(meta.data.contextId)) === undefined) {
      return { reason: 'the run context is no longer stored' };
    }
    return { rerun: meta.data };
  }

  function enqueue(runId: string, input: SubmitRunInput): Promise<RunOutcome> {
    return new Promise<RunOutcome>((resolve) => {
      active.set(runId, {
        input,
        controller: new AbortController(),
        resolve,
        started: false,
        cancelled: false,
        finished: Promise.resolve(),
      });
      queue.push(runId);
      pump();
    });
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
      if ((perKey.get(keyId) ?? 0) >= config.limits.concurrentRunsPerKey) {
        throw rateLimited(
          'concurrent_runs',
          `This key already has ${config.limits.concurrentRunsPerKey} runs queued or running`,
        );
      }
      if (queue.length + storing >= config.limits.queueSize) {
        throw rateLimited('queue', 'The run queue is full');
      }
      // The slot is taken before the first await, so concurrent submissions cannot all pass the
      // checks above and overshoot the limits.
      reserve(keyId);
      storing += 1;
      const runId = `run_${randomBytes(10).toString('hex')}`;
      let record: RunRecord;
      try {
        const meta: RunMeta = runMetaSchema.parse({
          kind: input.kind,
          owner: keyId,
          query: input.query,
          contextId: input.contextId,
          profile: input.profileName,
          model: profileNamed(input.profileName).model,
          budget: input.budget,
          agentId: input.agentId ?? null,
        });
        record = await store.createRun({ id: runId, status: 'queued', owner: keyId, config: meta });
      } catch (error) {
        unreserve(keyId);
        throw error;
      } finally {
        storing -= 1;
      }
      hub.notify(runId);
      return { record, done: enqueue(runId, input) };
    },
    async cancel(runId) {
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
      await persist(runId, serverEndEvents(runId, { status: 'cancelled', at: now() }));
      await finish(runId, run, emptyOutcome('cancelled'));
      return true;
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
      for (const record of await unfinishedRuns(store)) {
        const plan = await restartPlan(record);
        if ('rerun' in plan) {
          const { owner, query, contextId, profile, budget } = plan.rerun;
          const recorded = await store.trajectory(record.id);
          await persist(record.id, [restartNotice(record.id, now(), record.status)]);
          const principal = { keyId: owner, name: owner, role: 'user' as const };
          reserve(owner);
          void enqueue(record.id, {
            principal,
            kind: 'run',
            query,
            contextId,
            profileName: profile,
            budget,
            recorded,
          });
          requeued.push(record.id);
          continue;
        }
        const error = {
          code: 'server.unavailable',
          message: `the server restarted; ${plan.reason}`,
        };
        await persist(
          record.id,
          serverEndEvents(record.id, { status: 'interrupted', at: now(), error }),
        );
        await store.updateRun(record.id, { status: 'interrupted' });
        metrics.runFinished('interrupted');
        interrupted.push(record.id);
      }
      return { requeued, interrupted };
    },
    async shutdown(graceMs) {
      accepting = false;
      // Queued runs stay `queued` in the store: the next start runs them.
      for (const runId of queue.splice(0)) {
        const run = active.get(runId);
        if (run !== undefined) release(run, runId);
      }
      const inFlight = [...active.values()].filter((run) => run.started);
      const all = Promise.all(inFlight.map((run) => run.finished));
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const first = await Promise.race([all.then(() => 'done' as const), graceOver]);
      clearTimeout(timer);
      if (first === 'timeout') {
        for (const run of inFlight) {
          run.interruptedBy = `the server shut down; the run did not finish within the ${graceMs} ms grace period`;
          run.controller.abort(
            new RlmError({
              code: 'server.unavailable',
              message: run.interruptedBy,
              details: { reason: 'shutdown' },
            }),
          );
        }
        await all;
      }
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
