import { describe, expect, it } from 'vitest';
import { createServer } from './create-server.js';
import { MAX_JSON_DEPTH } from './json-nesting.js';
import type { RunEngine } from './run-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

const idleEngine: RunEngine = {
  run: () => Promise.reject(new Error('these tests look only at how a submission is answered')),
};

/** Arrays nested `depth` levels deep, as JSON text. */
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const DEEP = 200_000;

describe('a body nested deeper than the server holds', () => {
  it.each([
    ['/v1/runs', `{"query":"q","context":${nested(DEEP)}}`],
    [
      '/v1/chat/completions',
      `{"model":"default","context":${nested(DEEP)},"messages":[{"role":"user","content":"q"}]}`,
    ],
    ['/v1/contexts', nested(DEEP)],
  ])('is a 400 naming the limit at %s, not a 500', async (path, body) => {
    await using server = await startTestServer({ engine: idleEngine });
    const app = createServer(server.services);
    const response = await app.request(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.userKey}`, 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as {
      error: { code: string; message: string; details: { expected: string } };
    };
    expect(error.code).toBe('protocol.invalid_payload');
    expect(error.message).toContain(`more than ${MAX_JSON_DEPTH} levels deep`);
    expect(error.details.expected).toBe(`JSON nested at most ${MAX_JSON_DEPTH} levels deep`);
  });

  it('accepts a context nested as deep as the limit allows', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const app = createServer(server.services);
    const headers = {
      authorization: `Bearer ${server.userKey}`,
      'content-type': 'application/json',
    };
    const upload = await app.request('/v1/contexts', {
      method: 'POST',
      headers,
      body: nested(MAX_JSON_DEPTH),
    });
    expect(upload.status).toBe(201);
    // The run body's own object is one level: its context may nest one less.
    const run = await app.request('/v1/runs', {
      method: 'POST',
      headers,
      body: `{"query":"q","context":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(run.status).toBe(202);
  });
});
