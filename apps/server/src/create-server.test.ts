import { describe, expect, it } from 'vitest';
import type { RunEngine } from './run-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

const idleEngine: RunEngine = {
  run: () => Promise.reject(new Error('no run is started by these tests')),
};

describe('createServer', () => {
  it('answers 413 with the limit in a JSON body when a request body is too large', async () => {
    await using server = await startTestServer({
      engine: idleEngine,
      config: { limits: { bodyBytes: 1024, contextBytes: 2048 } },
    });
    const response = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q', context: 'x'.repeat(4096) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      error: { code: 'server.payload_too_large', details: { limitBytes: 2048 } },
    });
  });

  it('answers 400 naming the field when a run request is invalid', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '', config: { maxIterations: -1 } }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { code: string; details: { issues: string[] } };
    };
    expect(body.error.code).toBe('protocol.invalid_message');
    expect(body.error.details.issues.join('\n')).toMatch(/query/);
    expect(body.error.details.issues.join('\n')).toMatch(/config\.maxIterations/);
  });

  it('answers 400 when the body is not JSON', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/v1/runs', { method: 'POST', body: '{not json' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'protocol.invalid_payload' } });
  });

  it('answers 429 with retry-after once a key exceeds its request rate', async () => {
    await using server = await startTestServer({
      engine: idleEngine,
      config: { limits: { requestsPerMinute: 3 } },
    });
    const statuses = [];
    for (let index = 0; index < 4; index += 1)
      statuses.push((await server.request('/v1/runs')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await server.request('/v1/runs');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({
      error: { code: 'server.rate_limited', details: { limit: 'requests' } },
    });
    // Another key has its own bucket.
    expect((await server.request('/v1/runs', { key: server.otherKey })).status).toBe(200);
  });

  it('sends a request id and security headers, and a JSON 404 for unknown routes', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toMatchObject({ error: { code: 'server.not_found' } });
  });

  it('serves UI shells without data and with a strict content security policy', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/ui/runs/run_anything', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).toContain('data-run-id="run_anything"');
    expect(html).not.toMatch(/<script>[^<]/);
    const script = await server.request('/ui/assets/run-page.js', { key: null });
    expect(script.headers.get('content-type')).toContain('javascript');
    const injected = await server.request('/ui/runs/%22%3E%3Cscript%3E', { key: null });
    expect(await injected.text()).not.toContain('"><script>');
  });
});
