import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type RunLease, type RunStore, type Store } from '@rlm/memory';
import type { RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextStore } from './context-store.js';
import { createEventHub } from './event-hub.js';
import { createMetricsRegistry } from './metrics-registry.js';
import { createRunManager, type RunManager } from './run-manager.js';
import { runMetaSchema } from './run-meta.js';
import { createRunMetrics } from './run-metrics.js';
import { parseServerConfig } from './server-config.js';
import { type MemoryCoordinator, memoryCoordinator } from './test-support/memory-coordinator.js';
import { deferred } from './test-support/read-sse.js';
import { scriptedEngine } from './test-support/scripted-engine.js';

// A replica taking over a run whose replica died: the run store's clock is moved by hand, so a
// lease lapses exactly when the test says and never because the machine is slow; heartbeats run
// on real time (every 20 ms) and the test waits for them, whatever their pace.
const LEASE_MS = 1_000;
/** What the taker loop logs when taking a run up threw. */
const TAKING_FAILED = 'taking runs failed; trying again';

let clock: number;
let store: Store;
let dataDir: string;
let manager: RunManager | undefined;
/** Reads a test holds back; let go before the replica shuts down, whatever the test's outcome. */
let held: (() => void)[] = [];

beforeEach(async () => {
  clock = Date.now();
  store = await createStore({ kind: 'memory', now: () => clock });
  dataDir = await mkdtemp(join(tmpdir(), 'rlm-take-over-'));
});

afterEach(async () => {
  for (const release of held) release();
  held = [];
  await manager?.shutdown(0);
  manager = undefined;
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The run store with some reads made to wait (or fail) for one run, by method name. */
type Hooks = Partial<Record<'eventsAfter' | 'trajectory', (runId: string) => Promise<void>>>;

function hooked(runs: RunStore, hooks: Hooks): RunStore {
  return new Proxy(runs, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const hook = hooks[property as keyof Hooks];
      if (hook === undefined) return value.bind(target);
      return async (...args: unknown[]) => {
        await hook(String(args[0]));
        return value.apply(target, args);
      };
    },
  });
}

/**
 * A run a dead replica was executing: stored `running` with its `run-start`, its lease lapsed.
 * The replica started next finds it among the lapsed leases and takes it over.
 */
async function orphanedRun(): Promise<string> {
  const contexts = createContextStore(join(dataDir, 'contexts'));
  const context = await contexts.saveValue('abcdef', { owner: 'user' });
  const runId = 'run-orphaned';
  const config = runMetaSchema.parse({
    kind: 'run',
    owner: 'user',
    query: 'How long is it?',
    contextId: context.id,
    profile: 'default',
    model: 'scripted/model',
    budget: {
      maxIterations: 5,
      maxDepth: 1,
      maxTokens: 100_000,
      maxCostUsd: 1,
      maxWallTimeMs: 600_000,
      maxSubcalls: 10,
    },
    agentId: null,
  });
  await store.runs.createRun({ id: runId, status: 'running', owner: 'user', config });
  const dead = (await store.runs.claimRun(runId, {
    holder: 'dead-replica',
    leaseMs: LEASE_MS,
  })) as RunLease;
  await store.runs.fenced(dead).appendEvent(runId, runStart(runId));
  clock += LEASE_MS + 1;
  return runId;
}

function runStart(runId: string): RunEvent {
  return {
    v: 1,
    runId,
    parentRunId: null,
    rootRunId: runId,
    depth: 0,
    at: clock,
    type: 'run-start',
    query: 'How long is it?',
    model: 'scripted/model',
    context: [],
    maxIterations: 5,
    maxDepth: 1,
    promptVersion: 'scripted',
  } as RunEvent;
}

/** A replica (run manager with cluster loops) over the shared store, its reads hooked. */
function startReplica(hooks: Hooks, model = scriptedModel(['FINAL(6)'])) {
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const runs = hooked(store.runs, hooks);
  const coordinator = memoryCoordinator(runs, {
    replicaId: 'replica-b',
    leaseMs: LEASE_MS,
    heartbeatMs: 20,
    pollMs: 20,
  });
  const config = parseServerConfig({
    dataDir,
    profiles: { default: { model: 'scripted/model' } },
  });
  manager = createRunManager({
    store: runs,
    engine: scriptedEngine(() => model),
    contexts: createContextStore(join(dataDir, 'contexts')),
    hub: createEventHub(),
    config,
    metrics: createRunMetrics(createMetricsRegistry(), () => ({ queued: 0, running: 0 })),
    logger,
    coordinator,
  });
  return { logs, coordinator };
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits for two more heartbeats: the second one started after this call, so it saw the clock. */
async function twoBeats(coordinator: MemoryCoordinator): Promise<void> {
  const target = coordinator.beats + 2;
  await waitFor(() => coordinator.beats >= target, 'two heartbeats');
}

/** The replica's claim and release log lines, in order. */
function claimLog(logs: readonly Record<string, unknown>[]) {
  return logs.flatMap((log) =>
    log['msg'] === 'run claimed' || log['msg'] === 'run released'
      ? [
          {
            msg: log['msg'],
            epoch: log['epoch'],
            ...(log['lostLease'] === undefined
              ? {}
              : { lostLease: log['lostLease'], expiredAt: log['expiredAt'] }),
          },
        ]
      : [],
  );
}

async function storedTypes(runId: string): Promise<string[]> {
  return (await store.runs.eventsAfter(runId, 0)).map(({ event }) => event.type);
}

/**
 * Holds the first read of `runId`'s events (taking the run up reads them first) until `release()`;
 * `reached` settles once that read has started.
 */
function holdFirstEventsRead(runId: string) {
  const reached = deferred<void>();
  const gate = deferred<void>();
  held.push(() => gate.resolve());
  let slowed = false;
  const eventsAfter = async (id: string): Promise<void> => {
    if (id !== runId || slowed) return;
    slowed = true;
    reached.resolve();
    await gate.promise;
  };
  return { reached: reached.promise, release: () => gate.resolve(), eventsAfter };
}

describe('a replica taking over a run', () => {
  it('keeps its claim renewed while taking the run up takes longer than a lease', async () => {
    const runId = await orphanedRun();
    // Taking the run up reads its events first: that read takes three leases here.
    const read = holdFirstEventsRead(runId);
    const { logs, coordinator } = startReplica({ eventsAfter: read.eventsAfter });
    await read.reached;
    for (let step = 0; step < 6; step++) {
      clock += LEASE_MS / 2;
      await twoBeats(coordinator);
    }
    // Three leases after the claim, no other replica can claim the run.
    expect(await store.runs.claimRun(runId, { holder: 'replica-c', leaseMs: LEASE_MS })).toBe(
      undefined,
    );
    read.release();
    await waitFor(async () => (await store.runs.getRun(runId))?.status === 'completed', 'the end');
    expect(await storedTypes(runId)).toEqual([
      'run-start',
      'error', // the notice: another replica took the run over
      'run-start',
      'iteration-start',
      'model-call-start',
      'model-call-end',
      'iteration-end',
      'final-answer',
      'run-end',
    ]);
    expect(claimLog(logs)).toEqual([
      { msg: 'run claimed', epoch: 2 },
      { msg: 'run released', epoch: 2 },
    ]);
    expect(logs.filter((log) => log['msg'] === TAKING_FAILED)).toEqual([]);
  });

  it('releases and logs its claim when taking the run up fails, so the run moves on at once', async () => {
    const runId = await orphanedRun();
    let failures = 0;
    const { logs } = startReplica({
      trajectory: async (id) => {
        if (id !== runId || failures > 0) return;
        failures += 1;
        throw new Error('disk I/O error');
      },
    });
    await waitFor(() => logs.some((log) => log['msg'] === TAKING_FAILED), 'the failure');
    expect(claimLog(logs).slice(0, 2)).toEqual([
      { msg: 'run claimed', epoch: 2 },
      { msg: 'run released', epoch: 2 },
    ]);
    // The clock stands still: only a released lease lets the run be claimed again (here, by the
    // same replica on its next round), and the second attempt completes it.
    await waitFor(async () => (await store.runs.getRun(runId))?.status === 'completed', 'the end');
    expect(claimLog(logs)).toEqual([
      { msg: 'run claimed', epoch: 2 },
      { msg: 'run released', epoch: 2 },
      { msg: 'run claimed', epoch: 3 },
      { msg: 'run released', epoch: 3 },
    ]);
    const types = await storedTypes(runId);
    expect(types.filter((type) => type === 'run-end')).toHaveLength(1);
  });

  it('logs the claim released at its expiry when another replica took the run meanwhile', async () => {
    const runId = await orphanedRun();
    const claimedAt = clock;
    const read = holdFirstEventsRead(runId);
    const { logs, coordinator } = startReplica({ eventsAfter: read.eventsAfter });
    await read.reached;
    // The database is out of reach for this replica: its renewals fail and the lease lapses.
    coordinator.unreachable = true;
    clock += LEASE_MS + 1;
    const taker = await store.runs.claimRun(runId, { holder: 'replica-c', leaseMs: LEASE_MS });
    expect(taker?.epoch).toBe(3);
    read.release();
    await waitFor(
      () => logs.some((log) => log['msg'] === 'run released'),
      'the release to be logged',
    );
    expect(claimLog(logs)).toEqual([
      { msg: 'run claimed', epoch: 2 },
      { msg: 'run released', epoch: 2, lostLease: true, expiredAt: claimedAt + LEASE_MS },
    ]);
    // Nothing of this replica's reached the run, and the other replica's claim stands.
    expect(await storedTypes(runId)).toEqual(['run-start']);
    expect(await store.runs.leaseOf(runId)).toMatchObject({ holder: 'replica-c', epoch: 3 });
    expect(logs.filter((log) => log['msg'] === TAKING_FAILED)).toEqual([]);
  });

  it('keeps a cancel request made while the run is taken up until the run executes', async () => {
    const runId = await orphanedRun();
    const read = holdFirstEventsRead(runId);
    const { coordinator } = startReplica(
      { eventsAfter: read.eventsAfter },
      scriptedModel(['never'], { latencyMs: 60_000 }),
    );
    await read.reached;
    // Another replica asks this one to cancel the run: nothing here can act on it yet.
    await coordinator.requestCancel(runId);
    await twoBeats(coordinator);
    expect(await coordinator.cancelsFor([runId])).toEqual([runId]);
    read.release();
    await waitFor(async () => (await store.runs.getRun(runId))?.status === 'cancelled', 'cancel');
    expect((await storedTypes(runId)).filter((type) => type === 'run-end')).toHaveLength(1);
  });

  it('leaves a run it was taking up to another replica when it starts draining meanwhile', async () => {
    const runId = await orphanedRun();
    const read = holdFirstEventsRead(runId);
    const { logs } = startReplica({ eventsAfter: read.eventsAfter });
    await read.reached;
    const stopped = manager?.shutdown(0);
    read.release();
    await stopped;
    expect(claimLog(logs)).toEqual([
      { msg: 'run claimed', epoch: 2 },
      { msg: 'run released', epoch: 2 },
    ]);
    // Not executed here: the run waits, released, for the next replica (the clock stands still).
    expect(await store.runs.getRun(runId)).toMatchObject({ status: 'running' });
    expect(
      await store.runs.claimRun(runId, { holder: 'replica-c', leaseMs: LEASE_MS }),
    ).toMatchObject({ epoch: 3 });
  });
});
