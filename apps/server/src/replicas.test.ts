import { scriptedModel } from '@rlm/testkit';
import { createTestDatabase, testPostgres } from '@rlm/testkit/postgres';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { describe, expect, it } from 'vitest';
import type { ServerConfigInput } from './server-config.js';
import { readSse, type SseMessage } from './test-support/read-sse.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

const POSTGRES = testPostgres();

/** Two replicas on one fresh database, sharing their keys. */
async function twoReplicas(
  engine: Parameters<typeof startTestServer>[0]['engine'],
  config: Partial<ServerConfigInput> = {},
) {
  const database = await createTestDatabase();
  const a = await startTestServer({ engine, config, postgres: { url: database.url } });
  const b = await startTestServer({ engine, config, postgres: { url: database.url }, keysFrom: a });
  return {
    a,
    b,
    databaseUrl: database.url,
    async [Symbol.asyncDispose]() {
      await a.close();
      await b.close();
      await database.drop();
    },
  };
}

async function post(server: TestServer, path: string, body: unknown) {
  return server.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function events(server: TestServer, runId: string, lastEventId?: number) {
  const messages: SseMessage[] = [];
  const response = await server.request(`/v1/runs/${runId}/events`, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
  });
  for await (const message of readSse(response)) {
    if (message.event === 'end') break;
    messages.push(message);
  }
  return messages;
}

const slow = () => scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));

describe.skipIf(POSTGRES.url === null)('replicas on one Postgres', () => {
  it('streams a run from either replica and resumes a stream on the other', async () => {
    await using pair = await twoReplicas(
      scriptedEngine(() => scriptedModel(['thinking', 'FINAL(7)'])),
    );
    const run = (await (await post(pair.a, '/v1/runs', { query: 'q', context: 'c' })).json()) as {
      id: string;
    };
    const onB = await events(pair.b, run.id);
    const ids = onB.map((message) => Number(message.id));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    expect(onB.filter((message) => message.event === 'run-end')).toHaveLength(1);
    const resumed = await events(pair.a, run.id, 3);
    expect(resumed.map((message) => Number(message.id))).toEqual(ids.slice(3));
    const view = (await (await pair.b.request(`/v1/runs/${run.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(view).toMatchObject({ status: 'completed', answer: '7' });
  });

  it('holds the per-key concurrency limit across replicas', async () => {
    await using pair = await twoReplicas(slow(), { limits: { concurrentRunsPerKey: 2 } });
    expect((await post(pair.a, '/v1/runs', { query: '1' })).status).toBe(202);
    expect((await post(pair.b, '/v1/runs', { query: '2' })).status).toBe(202);
    const refused = await post(pair.b, '/v1/runs', { query: '3' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      error: { code: 'server.rate_limited', details: { limit: 'concurrent_runs' } },
    });
    expect((await post(pair.a, '/v1/runs', { query: '3' })).status).toBe(429);
    const otherKey = await pair.a.request('/v1/runs', {
      method: 'POST',
      key: pair.a.otherKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'another key has its own limit' }),
    });
    expect(otherKey.status).toBe(202);
  });

  it('shares the per-key request rate between replicas', async () => {
    await using pair = await twoReplicas(slow(), { limits: { requestsPerMinute: 4 } });
    const statuses: number[] = [];
    for (const server of [pair.a, pair.b, pair.a, pair.b, pair.a]) {
      statuses.push((await server.request('/v1/models')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('cancels on one replica a run the other executes', async () => {
    await using pair = await twoReplicas(slow());
    const run = (await (await post(pair.a, '/v1/runs', { query: 'q' })).json()) as { id: string };
    for await (const message of readSse(await pair.b.request(`/v1/runs/${run.id}/events`))) {
      if (message.event === 'model-call-start') break;
    }
    const holder = pair.a.services.runs.isActive(run.id) ? pair.a : pair.b;
    const other = holder === pair.a ? pair.b : pair.a;
    expect((await other.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' })).status).toBe(202);
    const log = await events(other, run.id);
    const ends = log.filter((message) => message.event === 'run-end');
    expect(ends).toHaveLength(1);
    expect(JSON.parse(ends[0]?.data ?? '{}')).toMatchObject({ status: 'cancelled' });
  });

  it('serves a context uploaded on one replica from the other, and deletes it there', async () => {
    await using pair = await twoReplicas(scriptedEngine(() => scriptedModel(['FINAL(ok)'])));
    const upload = await pair.a.request('/v1/contexts', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(3 * 1024 * 1024),
    });
    const { id, bytes } = (await upload.json()) as { id: string; bytes: number };
    expect(bytes).toBe(3 * 1024 * 1024);
    expect(await (await pair.b.request(`/v1/contexts/${id}`)).json()).toMatchObject({ id, bytes });
    expect(await pair.b.services.contexts.load(id)).toHaveLength(3 * 1024 * 1024);
    expect((await pair.b.request(`/v1/contexts/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await pair.a.request(`/v1/contexts/${id}`)).status).toBe(404);
  });

  it('runs the turns of one agent one at a time across replicas', async () => {
    const spans: { start: number; end: number }[] = [];
    const engine = scriptedEngine(() =>
      scriptedModel(async () => {
        const start = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 150));
        spans.push({ start, end: Date.now() });
        return 'FINAL(ok)';
      }),
    );
    await using pair = await twoReplicas(engine);
    const agent = (await (await post(pair.a, '/v1/agents', {})).json()) as { id: string };
    const turns = [pair.a, pair.b, pair.a, pair.b].map((server, index) =>
      post(server, `/v1/agents/${agent.id}/messages`, { sender: 's', body: `message ${index}` }),
    );
    const responses = await Promise.all(turns);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    spans.sort((x, y) => x.start - y.start);
    for (let index = 1; index < spans.length; index++) {
      expect(spans[index]?.start).toBeGreaterThanOrEqual(spans[index - 1]?.end ?? 0);
    }
    // Messages that reach one replica while a turn runs are staged into one next turn, so there
    // may be fewer turns than messages: one model call per turn, every message in exactly one.
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as {
      runId: string;
      messagesInTurn: number;
    }[];
    const perTurn = new Map(bodies.map((body) => [body.runId, body.messagesInTurn]));
    expect(spans).toHaveLength(perTurn.size);
    expect([...perTurn.values()].reduce((sum, count) => sum + count, 0)).toBe(4);
  });

  it('takes a run whose job a dead replica fetched but never claimed within a few leases', {
    timeout: 180_000,
  }, async () => {
    await using pair = await twoReplicas(slow(), { limits: { globalConcurrency: 1 } });
    const submit = async () =>
      ((await (await post(pair.a, '/v1/runs', { query: 'q' })).json()) as { id: string }).id;
    const status = async (runId: string) =>
      ((await (await pair.b.request(`/v1/runs/${runId}`)).json()) as { status: string }).status;
    const until = async (runId: string, wanted: string, ms: number) => {
      for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
        if ((await status(runId)) === wanted) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await status(runId), `${runId} after ${ms} ms`).toBe(wanted);
    };
    // Both replicas busy with one run each; the third waits on the queue.
    const first = await submit();
    const second = await submit();
    await until(first, 'running', 30_000);
    await until(second, 'running', 30_000);
    const third = await submit();
    // A replica takes the job off the queue and dies before claiming the run.
    const dead = new PgBoss({
      connectionString: pair.databaseUrl,
      supervise: false,
      schedule: false,
    });
    await dead.start();
    const jobs = await dead.fetch<{ runId: string }>('rlm-runs');
    await dead.stop({ graceful: false, close: true });
    expect(jobs.map((job) => job.data.runId)).toEqual([third]);
    expect((await pair.b.request(`/v1/runs/${first}/cancel`, { method: 'POST' })).status).toBe(202);
    // The job expires two leases (2 s each) after the fetch, checked every lease: the freed slot
    // takes the run then, not after pg-boss's default 15 minutes.
    await until(third, 'running', 60_000);
  });

  it('completes the watchdog job of a chat run deleted before the job is due', async () => {
    await using pair = await twoReplicas(scriptedEngine(() => scriptedModel(['FINAL(hi)'])));
    const chat = await post(pair.a, '/v1/chat/completions', {
      model: 'default',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(chat.status).toBe(200);
    const runId = chat.headers.get('x-rlm-run-id') ?? '';
    expect((await pair.b.request(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    // The job wakes two leases (2 s each here) after the run was stored; a replica fetches it and
    // finds the run gone. Done then, not failed and retried (up to 1,000 times, once a second).
    const client = new pg.Client({ connectionString: pair.databaseUrl });
    await client.connect();
    try {
      let state: string | undefined;
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
        const { rows } = await client.query<{ state: string }>(
          "SELECT state::text AS state FROM pgboss.job WHERE name = 'rlm-runs' AND data->>'runId' = $1",
          [runId],
        );
        state = rows[0]?.state;
        if (state !== undefined && !['created', 'active'].includes(state)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(state).toBe('completed');
    } finally {
      await client.end();
    }
  });

  it('hands a run to the other replica when its replica shuts down, ending it once', async () => {
    const engine = scriptedEngine(() =>
      scriptedModel(['one', 'two', 'FINAL(moved)'], { latencyMs: 300 }),
    );
    await using pair = await twoReplicas(engine, { shutdownGraceMs: 100 });
    const run = (await (await post(pair.a, '/v1/runs', { query: 'q' })).json()) as { id: string };
    for await (const message of readSse(await pair.a.request(`/v1/runs/${run.id}/events`))) {
      if (message.event === 'model-call-start') break;
    }
    const holder = pair.a.services.runs.isActive(run.id) ? pair.a : pair.b;
    const other = holder === pair.a ? pair.b : pair.a;
    await holder.close();
    const log = await events(other, run.id);
    const ids = log.map((message) => Number(message.id));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    const ends = log.filter((message) => message.event === 'run-end');
    expect(ends).toHaveLength(1);
    expect(JSON.parse(ends[0]?.data ?? '{}')).toMatchObject({ status: 'completed' });
  });
});
