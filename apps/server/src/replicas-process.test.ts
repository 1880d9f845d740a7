import { testPostgres } from '@rlm/testkit/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from './test-support/read-sse.js';
import { type ReplicaCluster, startReplicaCluster } from './test-support/replica-cluster.js';
import type { ServerProcess } from './test-support/server-process.js';

const POSTGRES = testPostgres();

// Three replicas as an operator runs them (the compiled binary, RLM_DATABASE_URL, a data
// directory each), 200 runs, one replica SIGKILLed while it executes runs.
const RUNS = 200;
const KILLED = 1;

interface Segment {
  replica: number;
  ids: number[];
}
interface Followed {
  runId: string;
  segments: Segment[];
  events: { id: number; type: string; depth: number; data: string }[];
  ended: boolean;
}

let cluster: ReplicaCluster | undefined;
const replicas: (ServerProcess | undefined)[] = [];
/** Every replica started, the killed one included (its logs outlive it). */
let started: ServerProcess[] = [];
let key = '';

describe.skipIf(POSTGRES.url === null)('three replicas on one Postgres', () => {
  beforeAll(async () => {
    cluster = await startReplicaCluster({
      name: 'replicas',
      replicas: 3,
      // The fake model answers in 200 ms: turn 1 writes code, turn 2 answers from its output.
      script: (request) =>
        request.messages.some((message) => message.content.includes('REPL output'))
          ? { text: 'FINAL(done)', delayMs: 200 }
          : { text: '```repl\nprint(context.length)\n```', delayMs: 200 },
      config: (fakeUrl) => ({
        profiles: { default: { model: `openai-compatible/fake@${fakeUrl}`, maxIterations: 4 } },
        limits: { concurrentRunsPerKey: 1_000, queueSize: 1_000, requestsPerMinute: 100_000 },
        // Short enough that the killed replica's runs move on quickly, long enough that a replica
        // stalled by a busy machine keeps its runs.
        cluster: { leaseMs: 4_000, heartbeatMs: 400, pollMs: 200 },
        shutdownGraceMs: 500,
        logLevel: 'info',
      }),
    });
    ({ key, started } = cluster);
    replicas.push(...started);
  }, 300_000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('ends every run exactly once, loses no event, and never runs one on two replicas at once', {
    timeout: 600_000,
  }, async () => {
    const submitted: { runId: string; submitter: number }[] = [];
    const following: Promise<Followed>[] = [];
    const killing = killWhileExecuting(KILLED, () => submitted.length);
    for (let index = 0; index < RUNS; index++) {
      // Round-robin over the replicas still running.
      const submitter = [index % 3, (index + 1) % 3].find((entry) => replicas[entry]) ?? 0;
      const runId = await submit(submitter, index);
      submitted.push({ runId, submitter });
      // Followed on every replica: whichever replicas execute the run (at most two, when it is
      // taken over from the killed one), the third one's stream follows it from elsewhere.
      for (const replica of [0, 1, 2]) following.push(follow(runId, replica));
    }
    const killedAt = await killing;
    const followed = await Promise.all(following);
    // A replica that stalled past a lease (a busy machine) notices at its next heartbeat and
    // logs the release once its run has wound down, which can be after the new holder finished.
    await allReleased();
    const claims = claimIntervals(killedAt);
    const client = new pg.Client({ connectionString: cluster?.database.url });
    await client.connect();
    try {
      let takenOver = 0;
      let movedBetweenLive = 0;
      for (const { runId } of submitted) {
        const stored = await storedEvents(client, runId);
        expect(stored.map((event) => event.id)).toEqual(stored.map((_, index) => index + 1));
        const ends = stored.filter((event) => event.type === 'run-end' && event.depth === 0);
        expect(ends, runId).toHaveLength(1);
        expect(JSON.parse(ends[0]?.data ?? '{}')).toMatchObject({ status: 'completed' });
        const streams = followed.filter((entry) => entry.runId === runId);
        for (const stream of streams) {
          expect(stream.ended).toBe(true);
          // Compared by id, type and depth: user keys see model URLs redacted in the data.
          expect(stream.events.map((event) => [event.id, event.type, event.depth])).toEqual(
            stored.map((event) => [event.id, event.type, event.depth]),
          );
        }
        const executors = new Set((claims.get(runId) ?? []).map((claim) => claim.replica));
        expect(executors.size, runId).toBeGreaterThan(0);
        if (executors.size > 1) takenOver += 1;
        // Followed to its end on a replica that never executed it, whenever one lived throughout
        // (a run that moved between the two live replicas, their leases lapsing on a busy
        // machine, has only the killed one left, whose stream finished elsewhere).
        const bystanders = [0, 1, 2].filter((index) => index !== KILLED && !executors.has(index));
        if (bystanders.length > 0) {
          expect(
            streams.some((stream) =>
              stream.segments.every((part) => bystanders.includes(part.replica)),
            ),
            `${runId} was followed on a replica that did not execute it`,
          ).toBe(true);
        } else movedBetweenLive += 1;
        const intervals = (claims.get(runId) ?? []).sort((a, b) => a.from - b.from);
        for (let index = 1; index < intervals.length; index++) {
          const previous = intervals[index - 1];
          const current = intervals[index];
          if (previous === undefined || current === undefined) continue;
          expect(
            current.from,
            `${runId}: claims overlap: ${JSON.stringify(intervals)} (killed at ${killedAt})`,
          ).toBeGreaterThanOrEqual(previous.to);
        }
      }
      expect(takenOver, 'runs taken over from the killed replica').toBeGreaterThan(0);
      // Most runs are followed from a bystander; only runs moved between live replicas are not.
      expect(movedBetweenLive, 'runs executed by both live replicas').toBeLessThan(RUNS / 2);
    } finally {
      await client.end();
    }
    for (const [index, replica] of replicas.entries()) {
      if (index === KILLED || replica === undefined) continue;
      replica.child.kill('SIGTERM');
      expect(await replica.exit).toBe(0);
      replicas[index] = undefined;
    }
  });
});

function live(index: number): ServerProcess {
  const replica = replicas[index];
  if (replica === undefined) throw new Error(`replica ${index} is not running`);
  return replica;
}

/** Submits on `replica`, or on the next live one when it died under the request. */
async function submit(replica: number, index: number): Promise<string> {
  let response: Response | undefined;
  for (const target of [replica, (replica + 1) % 3, (replica + 2) % 3]) {
    const url = replicas[target]?.url;
    if (url === undefined) continue;
    response = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: `length of run ${index}?`, context: 'x'.repeat(index + 1) }),
    }).catch(() => undefined);
    if (response !== undefined) break;
  }
  if (response === undefined) throw new Error(`run ${index}: no replica took the submission`);
  expect(response.status, await response.clone().text()).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Follows a run's events on `replica` until `end`; when that replica dies mid-stream, resumes on
 * the next live one with `Last-Event-ID`, as a client behind a load balancer would.
 */
async function follow(runId: string, replica: number): Promise<Followed> {
  const followed: Followed = { runId, segments: [], events: [], ended: false };
  let current = replica;
  for (let attempt = 0; attempt < 5 && !followed.ended; attempt++) {
    const segment: Segment = { replica: current, ids: [] };
    followed.segments.push(segment);
    const last = followed.events.at(-1)?.id;
    try {
      const response = await fetch(`${live(current).url}/v1/runs/${runId}/events`, {
        headers: {
          authorization: `Bearer ${key}`,
          ...(last === undefined ? {} : { 'last-event-id': String(last) }),
        },
      });
      for await (const message of readSse(response)) {
        if (message.event === 'end') {
          followed.ended = true;
          break;
        }
        if (message.event === 'shutdown') break;
        const event = JSON.parse(message.data) as { type: string; depth: number };
        const id = Number(message.id);
        segment.ids.push(id);
        followed.events.push({ id, type: event.type, depth: event.depth, data: message.data });
      }
    } catch {
      // The replica died under the stream: continue on another one.
    }
    if (followed.ended) break;
    current =
      [1, 2, 3].map((step) => (current + step) % 3).find((index) => replicas[index]) ?? current;
  }
  return followed;
}

/** SIGKILLs the replica mid-way: once a third of the runs are submitted and it executes some. */
async function killWhileExecuting(index: number, submitted: () => number): Promise<number> {
  const replica = live(index);
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (submitted() >= RUNS / 3 && openClaims(replica) >= 1) {
      replica.child.kill('SIGKILL');
      const at = Date.now();
      await replica.exit;
      replicas[index] = undefined;
      return at;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the replica to kill never had runs in progress');
}

/** Waits until no live replica holds a claim it has not logged as released. */
async function allReleased(): Promise<void> {
  const deadline = Date.now() + 120_000;
  const open = () => replicas.some((replica) => replica !== undefined && openClaims(replica) > 0);
  while (open() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function openClaims(replica: ServerProcess): number {
  const open = new Set<string>();
  for (const log of replica.logs) {
    const id = `${String(log['runId'])}#${String(log['epoch'])}`;
    if (log['msg'] === 'run claimed') open.add(id);
    if (log['msg'] === 'run released') open.delete(id);
  }
  return open.size;
}

/**
 * Each replica's claims, from its logs: claimed at, released at (the kill time for a claim the
 * killed replica never released). A claim a live replica never released fails the test.
 */
function claimIntervals(killedAt: number) {
  const claims = new Map<string, { replica: number; from: number; to: number }[]>();
  for (const [index, replica] of started.entries()) {
    const starts = new Map<string, number>();
    for (const log of replica?.logs ?? []) {
      const runId = String(log['runId']);
      const id = `${runId}#${String(log['epoch'])}`;
      if (log['msg'] === 'run claimed') starts.set(id, Number(log['time']));
      if (log['msg'] !== 'run released') continue;
      const from = starts.get(id);
      if (from === undefined) continue;
      starts.delete(id);
      // A replica that lost its lease held the run until the lease expired, not until it noticed.
      const expiredAt = Number(log['expiredAt'] ?? Number.POSITIVE_INFINITY);
      const to = Math.min(Number(log['time']), expiredAt);
      claims.set(runId, [...(claims.get(runId) ?? []), { replica: index, from, to }]);
    }
    for (const [id, from] of starts) {
      expect(index, `claim ${id} of live replica ${index} never released`).toBe(KILLED);
      const runId = id.split('#')[0] ?? '';
      claims.set(runId, [...(claims.get(runId) ?? []), { replica: index, from, to: killedAt }]);
    }
  }
  return claims;
}

async function storedEvents(client: pg.Client, runId: string) {
  const { rows } = await client.query<{ seq: number; event: string }>(
    'SELECT seq, event::text AS event FROM run_events WHERE run_id = $1 ORDER BY seq',
    [runId],
  );
  return rows.map((row) => {
    const event = JSON.parse(row.event) as { type: string; depth: number };
    return { id: row.seq, type: event.type, depth: event.depth, data: row.event };
  });
}
