import type { RunEvent } from '@rlm/protocol';
import { createTestDatabase, testPostgres } from '@rlm/testkit/postgres';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';
import { threeTaskCoordinator } from './test-support/three-task-coordinator.js';

const POSTGRES = testPostgres();

const coordinator = threeTaskCoordinator;

async function post(server: TestServer, path: string, body: unknown): Promise<Response> {
  return server.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function untilEnd(server: TestServer, id: string) {
  const events: RunEvent[] = [];
  for await (const message of readSse(await server.request(`/v1/runs/${id}/events`))) {
    if (message.event === 'end') break;
    events.push(JSON.parse(message.data) as RunEvent);
  }
  const view = (await (await server.request(`/v1/runs/${id}`)).json()) as Record<string, unknown>;
  return { events, view };
}

describe.skipIf(POSTGRES.url === null)('resuming a coordinator run among replicas', () => {
  it('resumes on either replica a budget-stopped run, without re-running its finished tasks, with one run-end', {
    timeout: 180_000,
  }, async () => {
    const perTask = new Map<string, number>();
    const model = coordinator(perTask);
    const engine = createExecutorEngine({ resolveModel: () => model, isolation: 'inline' });
    const config = {
      profiles: { default: { model: 'scripted/coordinator', mode: 'coordinator', maxDepth: 2 } },
      // Inline sandboxes share the event loop with the heartbeats: a loaded machine must not
      // make a replica lose its lease (a take-over is not what this test is about).
      cluster: { leaseMs: 20_000, heartbeatMs: 1_000, pollMs: 200 },
    } as const;
    await using database = await createTestDatabase();
    await using a = await startTestServer({ engine, config, postgres: { url: database.url } });
    await using b = await startTestServer({
      engine,
      config,
      postgres: { url: database.url },
      keysFrom: a,
    });
    const { id } = (await (
      await post(a, '/v1/runs', {
        query: 'Join the tasks',
        context: 'the context',
        config: { maxSubcalls: 2 },
      })
    ).json()) as { id: string };
    const stopped = await untilEnd(a, id);
    expect(stopped.view).toMatchObject({ status: 'budget_exceeded', resumable: true });
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1 });
    // Whichever replica ran it, the other one resumes it.
    const ranOnA = a.logs.some((line) => line['runId'] === id && line['msg'] === 'run claimed');
    const resumer = ranOnA ? b : a;
    const resumed = await post(resumer, `/v1/runs/${id}/resume`, { config: { maxSubcalls: 10 } });
    expect(resumed.status, await resumed.clone().text()).toBe(202);
    expect((await post(a, `/v1/runs/${id}/resume`, {})).status).toBe(409);
    const after = await untilEnd(b, id);
    expect(after.view).toMatchObject({ status: 'completed', answer: 'ONE+TWO+THREE' });
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1, three: 1 });
    const ends = after.events.filter((event) => event.type === 'run-end' && event.depth === 0);
    expect(ends).toEqual([expect.objectContaining({ status: 'completed' })]);
  });
});
