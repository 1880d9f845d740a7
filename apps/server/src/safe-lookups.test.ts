import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { parseServerConfig } from './server-config.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];

describe('profile and model look-ups', () => {
  it('treats names inherited from Object.prototype as unknown, listing the valid ones', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(1)'])),
    });
    const post = (path: string, body: object) =>
      server.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const name of INHERITED) {
      const run = await post('/v1/runs', { query: 'q', context: 'c', profile: name });
      expect(run.status, name).toBe(400);
      expect(JSON.stringify(await run.json())).toContain('expected one of default');
      const chat = await post('/v1/chat/completions', {
        model: name,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(chat.status, name).toBe(404);
      expect(((await chat.json()) as { error: { message: string } }).error.message).toContain(
        'configured models: default',
      );
      expect((await server.request(`/v1/models/${name}`)).status, name).toBe(404);
      expect((await post('/v1/agents', { profile: name })).status, name).toBe(400);
      expect((await server.request(`/v1/agents/${name}`)).status, name).toBe(404);
    }
  });

  it('refuses a configuration that names a profile after an Object.prototype member', () => {
    expect(() =>
      parseServerConfig({
        profiles: { constructor: { model: 'a/b' } },
        defaultProfile: 'constructor',
      }),
    ).toThrow(expect.objectContaining({ code: 'config.invalid' }));
    expect(() => parseServerConfig({ dataDir: '/tmp/x', defaultProfile: 'toString' })).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
  });
});
