import { openaiCompatible } from '@rlm/executor';
import { createStore, type Store } from '@rlm/memory';
import { labelledRecords, policies, scriptedModel, startFakeOpenAI } from '@rlm/testkit';
import { createTestDatabase, testPostgres } from '@rlm/testkit/postgres';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

const POSTGRES = testPostgres();
const task = labelledRecords({ count: 30, seed: 12 });

/** Runs to the end on `server` and returns the stored run. */
async function runOn(server: TestServer): Promise<Record<string, unknown>> {
  const created = await server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: task.queryFor('billing'), context: task.context }),
  });
  expect(created.status).toBe(202);
  const { id } = (await created.json()) as { id: string };
  for await (const message of readSse(await server.request(`/v1/runs/${id}/events`))) {
    if (message.event === 'end') break;
  }
  return (await (await server.request(`/v1/runs/${id}`)).json()) as Record<string, unknown>;
}

describe.skipIf(POSTGRES.url === null)('the sub-call cache on replicas sharing Postgres', () => {
  it('answers on one replica what the other paid for, and counts it in /metrics and /v1/cache', async () => {
    await using fake = await startFakeOpenAI({
      flavor: 'vllm',
      requireAuth: false,
      script: policies.chunkAndAggregate(),
    });
    const database = await createTestDatabase();
    const stores: Store[] = [];
    const servers: TestServer[] = [];
    try {
      const replica = async (keysFrom?: TestServer) => {
        // The store each replica's engine reads the cache from, as `main` hands it over.
        const store = await createStore({ kind: 'postgres', url: database.url });
        stores.push(store);
        const engine = createExecutorEngine({
          resolveModel: (id) =>
            id === 'root'
              ? scriptedModel(policies.chunkAndAggregate())
              : openaiCompatible({ baseURL: fake.url, model: 'qwen3-8b', provider: 'vllm' }),
          isolation: 'inline',
          callCaches: { postgres: store.callCache },
        });
        const server = await startTestServer({
          engine,
          postgres: { url: database.url },
          config: {
            profiles: {
              default: { model: 'root', subModel: 'sub', cache: { store: 'postgres' } },
            },
          },
          ...(keysFrom === undefined ? {} : { keysFrom }),
        });
        servers.push(server);
        return server;
      };
      // Replicas share a queue: any of them may take a run. So the first run is made while only
      // one replica is up, and that replica is gone before the second: each run is known to
      // have run where the test says.
      const a = await replica();
      const first = await runOn(a);
      expect(first['status']).toBe('completed');
      const paid = fake.requests.length;
      expect(paid).toBeGreaterThan(0);
      const b = await replica(a);
      await a.close();
      servers.splice(servers.indexOf(a), 1);

      const second = await runOn(b);
      expect(second).toMatchObject({ status: 'completed', answer: first['answer'] });
      expect(fake.requests.length).toBe(paid);

      const metrics = await (await b.request('/metrics', { key: null })).text();
      expect(metrics).toContain(`rlm_cache_hits_total{model="vllm/qwen3-8b"} ${paid}`);
      const stats = await b.request('/v1/cache/stats', { key: b.adminKey });
      expect(await stats.json()).toMatchObject({ entries: paid, hits: paid });
      expect((await b.request('/v1/cache/stats')).status).toBe(403);
      const cleared = await b.request('/v1/cache', { method: 'DELETE', key: b.adminKey });
      expect(await cleared.json()).toEqual({ deleted: paid });
    } finally {
      for (const server of servers) await server.close();
      for (const store of stores) await store.close();
      await database.drop();
    }
  });
});
