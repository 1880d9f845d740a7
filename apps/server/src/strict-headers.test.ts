import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

describe('strict headers', () => {
  it('accepts only a non-negative safe integer as Last-Event-ID or ?after=', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(1)'])),
    });
    const created = (await (
      await server.request('/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'q', context: 'c' }),
      })
    ).json()) as { id: string };
    const events = `/v1/runs/${created.id}/events`;
    for (const bad of ['99999999999999999999', '-1', 'abc', '1.5', '1e3', '0x10', '']) {
      const response = await server.request(events, { headers: { 'last-event-id': bad } });
      expect(response.status, bad).toBe(400);
      expect(await response.json()).toMatchObject({
        error: {
          code: 'protocol.invalid_message',
          message: expect.stringContaining('Last-Event-ID'),
        },
      });
    }
    expect((await server.request(`${events}?after=abc`)).status).toBe(400);
    const good = await server.request(events, { headers: { 'last-event-id': '3' } });
    expect(good.status).toBe(200);
    await good.body?.cancel();
  });

  it('answers any scheme but Bearer, and a missing or wrong key, with 401 and a challenge', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel([])),
    });
    const cases: [Record<string, string>, string, string][] = [
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 'invalid', 'error="invalid_request"'],
      [{ authorization: 'Token abc' }, 'invalid', 'error="invalid_request"'],
      [{}, 'missing', 'Bearer realm="rlm"'],
      [{ authorization: 'Bearer rlm_wrong' }, 'invalid', 'error="invalid_token"'],
    ];
    for (const [headers, reason, challenge] of cases) {
      const response = await server.request('/v1/runs', { key: null, headers });
      expect(response.status, JSON.stringify(headers)).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(challenge);
      expect(await response.json()).toMatchObject({
        error: { code: 'server.unauthorized', details: { reason } },
      });
    }
    expect(
      (
        await server.request('/v1/runs', {
          headers: { authorization: `bearer ${server.userKey}` },
          key: null,
        })
      ).status,
    ).toBe(200);
  });

  it('rate-limits failed authentication per client address, before the key is checked', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel([])),
      config: { limits: { authFailuresPerMinute: 3 } },
    });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await server.request('/v1/runs', { key: 'rlm_guess' })).status).toBe(401);
    }
    const limited = await server.request('/v1/runs', { key: 'rlm_guess' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right key from the same address waits too: guessing cannot be told from trying.
    expect((await server.request('/v1/runs')).status).toBe(429);
  });
});
