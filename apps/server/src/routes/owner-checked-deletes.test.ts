import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { deferred, readSse } from '../test-support/read-sse.js';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

async function post<T>(server: TestServer, path: string, body: unknown): Promise<T> {
  const response = await server.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

/** Follows the run's SSE stream until it ends. */
async function untilEnded(server: TestServer, runId: string): Promise<void> {
  for await (const message of readSse(await server.request(`/v1/runs/${runId}/events`))) {
    if (message.event === 'end') return;
  }
}

function remove(server: TestServer, path: string, key = server.userKey) {
  return server.request(path, { method: 'DELETE', key });
}

async function contextFiles(server: TestServer): Promise<string[]> {
  return readdir(join(server.services.config.dataDir, 'contexts')).catch(() => []);
}

describe('DELETE /v1/runs/:id', () => {
  it('deletes an ended run with its events, trajectory and inline context, for its owner only', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(4)'])),
    });
    const run = await post<{ id: string }>(server, '/v1/runs', { query: 'q', context: 'inline' });
    await untilEnded(server, run.id);
    expect(await contextFiles(server)).toHaveLength(2);
    expect((await remove(server, `/v1/runs/${run.id}`, server.otherKey)).status).toBe(404);
    expect((await remove(server, `/v1/runs/${run.id}`)).status).toBe(204);
    for (const path of ['', '/events', '/trajectory']) {
      expect((await server.request(`/v1/runs/${run.id}${path}`)).status).toBe(404);
    }
    expect(await server.services.store.runs.eventsAfter(run.id, 0)).toEqual([]);
    expect(await server.services.store.runs.trajectory(run.id)).toEqual([]);
    expect(await contextFiles(server)).toEqual([]);
    expect((await remove(server, `/v1/runs/${run.id}`)).status).toBe(404);
  });

  it('refuses a queued or running run with 409 until it has been cancelled', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 })),
      config: { limits: { globalConcurrency: 1 } },
    });
    const running = await post<{ id: string }>(server, '/v1/runs', { query: 'runs' });
    const queued = await post<{ id: string }>(server, '/v1/runs', { query: 'waits' });
    for (const run of [running, queued]) {
      const refused = await remove(server, `/v1/runs/${run.id}`);
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({
        error: { code: 'server.conflict', details: { reason: 'run is active' } },
      });
    }
    for (const run of [queued, running]) {
      await server.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
      await untilEnded(server, run.id);
      expect((await remove(server, `/v1/runs/${run.id}`)).status).toBe(204);
    }
  });

  it('keeps an uploaded context that the deleted run used', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(ok)'])),
    });
    const context = await uploadText(server, 'shared context');
    const run = await post<{ id: string }>(server, '/v1/runs', {
      query: 'q',
      contextId: context,
    });
    await untilEnded(server, run.id);
    expect((await remove(server, `/v1/runs/${run.id}`)).status).toBe(204);
    expect((await server.request(`/v1/contexts/${context}`)).status).toBe(200);
  });
});

async function uploadText(server: TestServer, text: string): Promise<string> {
  const response = await server.request('/v1/contexts', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: text,
  });
  return ((await response.json()) as { id: string }).id;
}

describe('DELETE /v1/contexts/:id', () => {
  it('deletes a context for its owner only and leaves no file behind', async () => {
    await using server = await startTestServer({ engine: scriptedEngine(() => scriptedModel([])) });
    const context = await uploadText(server, 'to be deleted');
    expect((await remove(server, `/v1/contexts/${context}`, server.otherKey)).status).toBe(404);
    expect((await remove(server, `/v1/contexts/${context}`)).status).toBe(204);
    expect((await server.request(`/v1/contexts/${context}`)).status).toBe(404);
    expect((await remove(server, `/v1/contexts/${context}`)).status).toBe(404);
    expect(await contextFiles(server)).toEqual([]);
  });

  it('refuses with 409 while a queued or running run reads the context', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 })),
    });
    const context = await uploadText(server, 'in use');
    const run = await post<{ id: string }>(server, '/v1/runs', { query: 'q', contextId: context });
    const refused = await remove(server, `/v1/contexts/${context}`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      error: { code: 'server.conflict', details: { reason: 'context in use' } },
    });
    await server.request(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
    await untilEnded(server, run.id);
    expect((await remove(server, `/v1/contexts/${context}`)).status).toBe(204);
  });
});

describe('DELETE /v1/agents/:id', () => {
  it("removes the agent's conversations, layer versions, scratchpad and working memory", async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(() => 'FINAL(noted)')),
    });
    const agent = await post<{ id: string }>(server, '/v1/agents', {});
    const kept = await post<{ id: string }>(server, '/v1/agents', {});
    for (const id of [agent.id, kept.id]) {
      await post(server, `/v1/agents/${id}/messages`, { sender: 'alice', body: 'hello' });
      await server.services.store.forAgent(id).scratchpad.set('note', {
        type: 't',
        summary: 's',
        raw: id,
      });
    }
    expect((await remove(server, `/v1/agents/${agent.id}`, server.otherKey)).status).toBe(404);
    expect((await remove(server, `/v1/agents/${agent.id}`)).status).toBe(204);
    expect((await server.request(`/v1/agents/${agent.id}/conversations`)).status).toBe(404);
    const memory = server.services.store.forAgent(agent.id);
    expect(await memory.conversations.listSenders()).toEqual([]);
    expect(await memory.scratchpad.list()).toEqual([]);
    expect(await memory.workingMemory.list()).toEqual([]);
    const other = server.services.store.forAgent(kept.id);
    expect(await other.conversations.listSenders()).toHaveLength(1);
    expect(await other.workingMemory.list()).toHaveLength(1);
  });

  it('waits for a turn in progress, then deletes what that turn stored too', async () => {
    const release = deferred();
    const engine = scriptedEngine(() =>
      scriptedModel(async () => {
        await release.promise;
        return 'FINAL(late reply)';
      }),
    );
    await using server = await startTestServer({ engine });
    const agent = await post<{ id: string }>(server, '/v1/agents', {});
    const turn = server.request(`/v1/agents/${agent.id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sender: 'bob', body: 'slow one' }),
    });
    await waitFor(async () => server.services.runs.stats().running === 1);
    const deletion = remove(server, `/v1/agents/${agent.id}`);
    // The registration goes at once, while the deletion of the data waits for the turn.
    await waitFor(async () => (await server.request(`/v1/agents/${agent.id}`)).status === 404);
    const lateTurn = server.request(`/v1/agents/${agent.id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sender: 'bob', body: 'after the delete' }),
    });
    expect((await lateTurn).status).toBe(404);
    release.resolve();
    expect((await turn).status).toBe(200);
    expect((await deletion).status).toBe(204);
    const memory = server.services.store.forAgent(agent.id);
    expect(await memory.conversations.listSenders()).toEqual([]);
    expect(await memory.workingMemory.list()).toEqual([]);
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not reached within 10 s');
}
