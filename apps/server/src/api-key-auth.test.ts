import { describe, expect, it } from 'vitest';
import type { RunEngine } from './run-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

const idleEngine: RunEngine = {
  run: () => Promise.reject(new Error('no run is started by these tests')),
};

describe('API key authentication', () => {
  it('answers 401 with a JSON body when the key is missing', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/v1/runs', { key: null });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { code: string; details: unknown } };
    expect(body.error).toMatchObject({
      code: 'server.unauthorized',
      details: { reason: 'missing' },
    });
  });

  it('answers 401 for a wrong key', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/v1/runs', { key: 'rlm_not-a-real-key' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { details: { reason: 'invalid' } } });
  });

  it('answers 401 with reason revoked once a key is revoked', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    expect((await server.request('/v1/runs')).status).toBe(200);
    const [record] = (await server.keys.list()).filter((key) => key.name === 'user');
    await server.keys.revoke(record?.id ?? '', new Date());
    const response = await server.request('/v1/runs');
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { details: { reason: 'revoked' } } });
  });

  it('leaves health endpoints open', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    expect((await server.request('/healthz', { key: null })).status).toBe(200);
    expect((await server.request('/readyz', { key: null })).status).toBe(200);
    const metrics = await server.request('/metrics', { key: null });
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('# TYPE rlm_event_loop_lag_seconds gauge');
  });

  it('never writes the key into the logs', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    await server.request('/v1/runs');
    await server.request('/v1/runs', { key: 'rlm_wrong-key-value' });
    const text = server.rawLogs.join('');
    expect(server.logs.some((line) => line['msg'] === 'request')).toBe(true);
    expect(text).not.toContain(server.userKey);
    expect(text).not.toContain('rlm_wrong-key-value');
  });
});
