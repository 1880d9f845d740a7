import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { readSse } from './test-support/read-sse.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

async function startRun(server: TestServer, query = 'q') {
  const response = await server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as { id: string } };
}

async function finish(server: TestServer, runId: string) {
  for await (const message of readSse(await server.request(`/v1/runs/${runId}/events`))) {
    if (message.event === 'end') return;
  }
}

describe('operations', () => {
  it('counts runs, model calls and tokens in /metrics', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(1)'], { id: 'scripted/metrics' }));
    await using server = await startTestServer({ engine });
    await finish(server, (await startRun(server)).body.id);
    const text = await (await server.request('/metrics', { key: null })).text();
    expect(text).toContain('rlm_runs_total{status="completed"} 1');
    expect(text).toMatch(/rlm_model_calls_total\{model="scripted\/metrics",ok="true"\} 1/);
    expect(text).toMatch(/rlm_tokens_total\{model="scripted\/metrics",kind="output"\} [1-9]/);
    expect(text).toContain('rlm_runs{state="running"} 0');
    expect(text).toContain('rlm_active_sandboxes 0');
  });

  it('logs each request with its id but never the query or context', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(1)']));
    await using server = await startTestServer({ engine, config: { logLevel: 'debug' } });
    const response = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query-text-7f3a', context: 'context-text-91bc' }),
    });
    await finish(server, ((await response.json()) as { id: string }).id);
    const lines = server.logs.filter((line) => line['msg'] === 'request');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every((line) => typeof line['requestId'] === 'string')).toBe(true);
    const text = server.rawLogs.join('');
    expect(text).not.toContain('query-text-7f3a');
    expect(text).not.toContain('context-text-91bc');
  });

  it('sends heartbeat comments on an idle event stream', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({ engine, config: { heartbeatMs: 50 } });
    const { body } = await startRun(server);
    const controller = new AbortController();
    const response = await server.request(`/v1/runs/${body.id}/events`, {
      signal: controller.signal,
    });
    const decoder = new TextDecoder();
    let text = '';
    // Comments carry no event, so the raw stream is read here. On a busy machine heartbeats can
    // come before the run's first event is stored: read until both are there.
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('event: run-start') && text.split(': heartbeat\n\n').length > 2) break;
    }
    controller.abort();
    expect(text).toContain('event: run-start');
    expect(text.split(': heartbeat\n\n').length).toBeGreaterThan(2);
    await server.request(`/v1/runs/${body.id}/cancel`, { method: 'POST' });
  });

  it('answers 429 with limit queue when the run queue is full', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({
      engine,
      config: { limits: { globalConcurrency: 1, queueSize: 1 } },
    });
    const running = await startRun(server);
    const queued = await startRun(server);
    const refused = await server.request('/v1/runs', {
      method: 'POST',
      key: server.otherKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q' }),
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { details: { limit: 'queue' } } });
    for (const run of [queued, running])
      await server.request(`/v1/runs/${run.body.id}/cancel`, { method: 'POST' });
  });

  it('sends CORS headers only to configured origins', async () => {
    const engine = scriptedEngine(() => scriptedModel([]));
    await using server = await startTestServer({
      engine,
      config: { corsOrigins: ['https://app.example'] },
    });
    const allowed = await server.request('/v1/runs', {
      headers: { origin: 'https://app.example' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const other = await server.request('/v1/runs', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('reports not ready and refuses runs while shutting down', async () => {
    const engine = scriptedEngine(() => scriptedModel([]));
    await using server = await startTestServer({ engine });
    await server.services.shutdown(0);
    expect((await server.request('/readyz', { key: null })).status).toBe(503);
    const refused = await startRun(server);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ error: { code: 'server.unavailable' } });
  });
});
