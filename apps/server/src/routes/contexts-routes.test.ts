import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer } from '../test-support/start-test-server.js';

function chunkedBody(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent += 1;
      controller.enqueue(new TextEncoder().encode('y'.repeat(size)));
    },
  });
}

describe('context uploads', () => {
  it('stores a JSON context streamed without a length and reports its size and hash', async () => {
    await using server = await startTestServer({ engine: scriptedEngine(() => scriptedModel([])) });
    const response = await server.request('/v1/contexts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Blob(['["a","b","c"]']).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      format: 'json',
      bytes: 13,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('stops a streamed upload at the limit with 413 and leaves nothing on disk', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel([])),
      config: { limits: { contextBytes: 10_000 } },
    });
    const response = await server.request('/v1/contexts', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: chunkedBody(8, 4_000),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      error: { code: 'server.payload_too_large', details: { what: 'context', limitBytes: 10_000 } },
    });
    const files = await readdir(join(server.services.config.dataDir, 'contexts')).catch(() => []);
    expect(files.filter((name) => name.endsWith('.data'))).toEqual([]);
  });

  it('rejects a JSON upload that is not JSON with 400', async () => {
    await using server = await startTestServer({ engine: scriptedEngine(() => scriptedModel([])) });
    const response = await server.request('/v1/contexts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"unterminated": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'protocol.invalid_payload' } });
  });
});
