import type { RunEvent } from '@rlm/protocol';
import type { FakeModelRequest } from '@rlm/testkit';
import { testPostgres } from '@rlm/testkit/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicaCluster, startReplicaCluster } from './test-support/replica-cluster.js';
import type { ServerProcess } from './test-support/server-process.js';
import {
  coordinatorReply,
  isCoordinatorRequest,
  TASK_REPLY,
  taskOf,
} from './test-support/three-task-coordinator.js';

const POSTGRES = testPostgres();

let cluster: ReplicaCluster | undefined;
let databaseUrl = '';
let key = '';
let replicas: ServerProcess[] = [];
/** Model requests of each background task, by task. */
const perTask = new Map<string, number>();
/** Task three's requests wait on this until the test lets them through. */
let openGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => {
  openGate = resolve;
});
let taskThreeAsked: () => void = () => undefined;
const taskThreeWaiting = new Promise<void>((resolve) => {
  taskThreeAsked = resolve;
});

/**
 * A coordinator: turn 0 delegates two tasks and reads them, turn 1 delegates a third, turn 2
 * answers with all three. A task answers with its context in capitals; the third one waits on
 * the gate, so its replica can be killed while it runs.
 */
async function coordinator(request: FakeModelRequest): Promise<string> {
  const text = JSON.stringify(request.messages) + (request.system ?? '');
  if (!isCoordinatorRequest(text)) {
    const task = taskOf(text);
    perTask.set(task, (perTask.get(task) ?? 0) + 1);
    if (task === 'three') {
      taskThreeAsked();
      await gate;
    }
    return TASK_REPLY;
  }
  return coordinatorReply(
    request.messages.filter((message) => message.role === 'assistant').length,
  );
}

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function storedEvents(runId: string): Promise<RunEvent[]> {
  const rows = await query<{ event: string }>(
    'SELECT event::text AS event FROM run_events WHERE run_id = $1 ORDER BY seq',
    [runId],
  );
  return rows.map((row) => JSON.parse(row.event) as RunEvent);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 1_200; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.skipIf(POSTGRES.url === null)('a coordinator run whose replica is SIGKILLed', () => {
  beforeAll(async () => {
    cluster = await startReplicaCluster({
      name: 'coordinator-takeover',
      replicas: 2,
      script: coordinator,
      config: (fakeUrl) => ({
        profiles: {
          default: {
            model: `openai-compatible/coordinator@${fakeUrl}`,
            mode: 'coordinator',
            maxDepth: 2,
          },
        },
        cluster: { leaseMs: 3_000, heartbeatMs: 300, pollMs: 200 },
        shutdownGraceMs: 500,
        logLevel: 'info',
      }),
    });
    ({ key, started: replicas } = cluster);
    databaseUrl = cluster.database.url;
  }, 300_000);

  afterAll(async () => {
    openGate();
    await cluster?.close();
  });

  it('is taken over by the other replica, which finishes it without re-running its finished tasks, with one run-end', {
    timeout: 300_000,
  }, async () => {
    const created = await fetch(`${replicas[0]?.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Join the tasks', context: 'the context' }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    // Tasks one and two finished in turn 0 (checkpointed); task three runs in turn 1.
    await taskThreeWaiting;
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1, three: 1 });
    const [lease] = await query<{ holder: string }>(
      'SELECT holder FROM run_leases WHERE run_id = $1',
      [id],
    );
    const holder = replicas.find((replica) => replica.replicaId === lease?.holder);
    const other = replicas.find((replica) => replica !== holder);
    if (holder === undefined || other === undefined) throw new Error('no replica holds the run');
    holder.child.kill('SIGKILL');
    await holder.exit;
    openGate();

    const view = await until('the run to end on the other replica', async () => {
      const response = await fetch(`${other.url}/v1/runs/${id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { status: string };
      return ['queued', 'running'].includes(body.status) ? undefined : body;
    });
    expect(view).toMatchObject({ status: 'completed', answer: 'ONE+TWO+THREE' });
    // The finished tasks asked no model again; the interrupted one ran again from its start.
    expect(perTask.get('one')).toBe(1);
    expect(perTask.get('two')).toBe(1);
    expect(perTask.get('three')).toBe(2);
    const events = await storedEvents(id);
    const resumedAt = events.findIndex((event) => event.type === 'run-resume');
    expect(events[resumedAt]).toMatchObject({ depth: 0, fromIteration: 1 });
    const startedAfter = events
      .slice(resumedAt)
      .filter((event) => event.type === 'task-start')
      .map((event) => (event as { task: string }).task);
    expect(startedAfter).toEqual(['task three']);
    const ends = events.filter((event) => event.type === 'run-end' && event.depth === 0);
    expect(ends).toEqual([expect.objectContaining({ status: 'completed' })]);
  });
});
