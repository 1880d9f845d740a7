import { type RunEvent, runEventSchema, TRAJECTORY_VERSION } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { parseTrajectory } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { deferred, readSse, type SseMessage } from '../test-support/read-sse.js';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

async function createRun(server: TestServer, body: object, key = server.userKey) {
  const response = await server.request('/v1/runs', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { response, run: (await response.json()) as { id: string; status: string } };
}

async function collect(
  server: TestServer,
  runId: string,
  init: { lastEventId?: string; until?: (message: SseMessage) => boolean } = {},
) {
  const controller = new AbortController();
  const response = await server.request(`/v1/runs/${runId}/events`, {
    headers: init.lastEventId === undefined ? {} : { 'last-event-id': init.lastEventId },
    signal: controller.signal,
  });
  const messages: SseMessage[] = [];
  try {
    for await (const message of readSse(response)) {
      messages.push(message);
      if (message.event === 'end' || init.until?.(message)) break;
    }
  } finally {
    controller.abort();
  }
  return messages;
}

describe('runs API', () => {
  it('runs a query to completion and streams every event over SSE', async () => {
    const engine = scriptedEngine(() => scriptedModel(['Looking at the context.', 'FINAL(42)']));
    await using server = await startTestServer({ engine });
    const { response, run } = await createRun(server, {
      query: 'What is the answer?',
      context: ['a', 'b'],
    });
    expect(response.status).toBe(202);
    expect(run.status).toBe('queued');
    const messages = await collect(server, run.id);
    const types = messages.map((message) => message.event);
    expect(types[0]).toBe('run-start');
    expect(types.slice(-2)).toEqual(['run-end', 'end']);
    const events = messages.filter((message) => message.event !== 'end');
    expect(events.map((message) => Number(message.id))).toEqual(
      events.map((_, index) => index + 1),
    );
    for (const message of events) runEventSchema.parse(JSON.parse(message.data));
    const final = (await (await server.request(`/v1/runs/${run.id}`)).json()) as Record<
      string,
      unknown
    >;
    expect(final).toMatchObject({ status: 'completed', answer: '42', iterations: 2 });
  });

  it('resumes an SSE stream after Last-Event-ID with no gap and no duplicate', async () => {
    const gate = deferred<string>();
    const engine = scriptedEngine(() =>
      scriptedModel(['first turn', () => gate.promise, 'FINAL(done)']),
    );
    await using server = await startTestServer({ engine });
    const { run } = await createRun(server, { query: 'q' });
    const firstPart = await collect(server, run.id, {
      until: (message) => message.event === 'iteration-end',
    });
    const lastSeen = firstPart.at(-1)?.id ?? '0';
    gate.resolve('second turn');
    const rest = await collect(server, run.id, { lastEventId: lastSeen });
    const ids = [...firstPart, ...rest].filter((m) => m.id !== undefined).map((m) => Number(m.id));
    expect(ids).toEqual(ids.map((_, index) => index + 1));
    expect(rest[0]?.id).toBe(String(Number(lastSeen) + 1));
    expect(rest.map((m) => m.event).slice(-2)).toEqual(['run-end', 'end']);
  });

  it('cancels a running run', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({ engine });
    const { run } = await createRun(server, { query: 'q' });
    await collect(server, run.id, { until: (message) => message.event === 'model-call-start' });
    const cancel = await server.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(202);
    const messages = await collect(server, run.id);
    const end = messages.find((message) => message.event === 'run-end');
    expect((JSON.parse(end?.data ?? '{}') as RunEvent & { status: string }).status).toBe(
      'cancelled',
    );
    const again = await server.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
  });

  it('cancels a run still waiting in the queue', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({
      engine,
      config: { limits: { globalConcurrency: 1 } },
    });
    const { run: first } = await createRun(server, { query: 'blocks the only slot' });
    const { run: second } = await createRun(server, { query: 'waits' });
    expect((await server.request(`/v1/runs/${second.id}/cancel`, { method: 'POST' })).status).toBe(
      202,
    );
    const view = (await (await server.request(`/v1/runs/${second.id}`)).json()) as {
      status: string;
    };
    expect(view.status).toBe('cancelled');
    await server.request(`/v1/runs/${first.id}/cancel`, { method: 'POST' });
  });

  it('answers 429 with retry-after when a key has too many runs', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({
      engine,
      config: { limits: { concurrentRunsPerKey: 1 } },
    });
    const { run } = await createRun(server, { query: 'one' });
    const { response, run: body } = await createRun(server, { query: 'two' });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(body).toMatchObject({
      error: { code: 'server.rate_limited', details: { limit: 'concurrent_runs' } },
    });
    await server.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
  });

  it('holds the per-key limit when many runs are submitted at once', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({
      engine,
      config: { limits: { concurrentRunsPerKey: 3 } },
    });
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => createRun(server, { query: `q${index}` })),
    );
    const statuses = responses.map(({ response }) => response.status).sort();
    expect(statuses).toEqual([202, 202, 202, ...Array(7).fill(429)]);
    for (const { run } of responses.filter(({ response }) => response.status === 202)) {
      await server.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
    }
  });

  it('shows a run only to its owner and to admins', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(ok)']));
    await using server = await startTestServer({ engine });
    const { run } = await createRun(server, { query: 'mine' });
    await collect(server, run.id);
    expect((await server.request(`/v1/runs/${run.id}`, { key: server.otherKey })).status).toBe(404);
    expect((await server.request(`/v1/runs/${run.id}`, { key: server.adminKey })).status).toBe(200);
    const mine = (await (await server.request('/v1/runs')).json()) as { data: { id: string }[] };
    const theirs = (await (await server.request('/v1/runs', { key: server.otherKey })).json()) as {
      data: unknown[];
    };
    expect(mine.data.map((item) => item.id)).toEqual([run.id]);
    expect(theirs.data).toEqual([]);
  });

  it('pages through runs newest first and filters by status', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(ok)']));
    await using server = await startTestServer({ engine });
    const ids = [];
    for (const query of ['one', 'two', 'three']) {
      const { run } = await createRun(server, { query });
      await collect(server, run.id);
      ids.push(run.id);
      // Runs are ordered by creation time (ms); distinct times keep the expected order exact.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    type Page = { data: { id: string }[]; nextCursor: string | null };
    const first = (await (await server.request('/v1/runs?limit=2')).json()) as Page;
    expect(first.data.map((run) => run.id)).toEqual([ids[2], ids[1]]);
    const second = (await (
      await server.request(`/v1/runs?limit=2&cursor=${first.nextCursor}`)
    ).json()) as Page;
    expect(second.data.map((run) => run.id)).toEqual([ids[0]]);
    expect(second.nextCursor).toBeNull();
    const running = (await (await server.request('/v1/runs?status=running')).json()) as Page;
    expect(running.data).toEqual([]);
    expect((await server.request('/v1/runs?status=bogus')).status).toBe(400);
  });

  it("gives a user full pages of their own runs when other keys' runs are interleaved", async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(ok)']));
    await using server = await startTestServer({ engine });
    const mine: string[] = [];
    for (let index = 0; index < 12; index++) {
      const key = index % 3 === 0 ? server.userKey : server.otherKey;
      const { run } = await createRun(server, { query: `q${index}` }, key);
      await collect(server, run.id);
      if (key === server.userKey) mine.push(run.id);
    }
    type Page = { data: { id: string }[]; nextCursor: string | null };
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = (await (await server.request(`/v1/runs?limit=3${query}`)).json()) as Page;
      pages.push(page.data.map((run) => run.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(pages.map((page) => page.length)).toEqual([3, 1]);
    expect(pages.flat().sort()).toEqual([...mine].sort());
    const all = (await (
      await server.request('/v1/runs?limit=200', { key: server.adminKey })
    ).json()) as Page;
    expect(all.data).toHaveLength(12);
  });

  it('serves the trajectory as JSONL of valid records', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(ok)']));
    await using server = await startTestServer({ engine });
    const { run } = await createRun(server, { query: 'q' });
    await collect(server, run.id);
    const response = await server.request(`/v1/runs/${run.id}/trajectory`);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    const records = parseTrajectory(await response.text());
    expect(records[0]).toMatchObject({
      kind: 'header',
      version: TRAJECTORY_VERSION,
      runId: run.id,
    });
    expect(records.filter((record) => record.kind === 'event').length).toBeGreaterThan(3);
  });

  it('runs over an uploaded context and refuses other keys and oversize uploads', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(ok)']));
    await using server = await startTestServer({
      engine,
      config: { limits: { contextBytes: 1000 } },
    });
    const upload = await server.request('/v1/contexts', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello context',
    });
    expect(upload.status).toBe(201);
    const { id } = (await upload.json()) as { id: string };
    expect((await createRun(server, { query: 'q', contextId: id })).response.status).toBe(202);
    expect(
      (await createRun(server, { query: 'q', contextId: id }, server.otherKey)).response.status,
    ).toBe(404);
    const big = await server.request('/v1/contexts', { method: 'POST', body: 'x'.repeat(5000) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({
      error: { code: 'server.payload_too_large', details: { limitBytes: 1000 } },
    });
  });
});
