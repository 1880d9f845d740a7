import { join, resolve } from 'node:path';
import { createStore } from '@rlm/memory';
import { offlineModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { loadServerConfig } from './load-server-config.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import { startTestServer } from './test-support/start-test-server.js';

describe('operations defaults', () => {
  it('keeps data in one directory that does not depend on the working directory', async () => {
    const config = await loadServerConfig({ XDG_DATA_HOME: '/srv/xdg' });
    expect(config.dataDir).toBe('/srv/xdg/rlm-server');
    expect(config.store).toEqual({ kind: 'sqlite', path: '/srv/xdg/rlm-server/rlm-server.db' });
    const relative = await loadServerConfig({ RLM_SERVER_DATA_DIR: 'data' });
    expect(relative.dataDir).toBe(resolve('data'));
    expect(relative.store).toEqual({
      kind: 'sqlite',
      path: join(resolve('data'), 'rlm-server.db'),
    });
  });

  it('answers with an offline testkit model and no key', { timeout: 60_000 }, async () => {
    const resolver = createProductionModelResolver({});
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: resolver, isolation: 'inline' }),
      config: { profiles: { default: { model: 'testkit:needle-finder' } } },
    });
    const response = await server.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'default',
        context: 'noise\nThe magic number is 4242.\nmore noise',
        messages: [{ role: 'user', content: 'What is the magic number?' }],
      }),
    });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: '4242' } }] });
    expect(() => offlineModel('testkit:genius')).toThrow(/testkit:needle-finder/);
  });

  it('is not ready while the default profile cannot be served', async () => {
    const resolver = createProductionModelResolver({});
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: resolver, isolation: 'inline' }),
      config: { profiles: { default: { model: 'anthropic/claude-sonnet-4-5' } } },
    });
    const services = { ...server.services, checkModel: (id: string) => void resolver(id) };
    const { createServer } = await import('./create-server.js');
    const { createServerServices } = await import('./server-services.js');
    const app = createServer(
      createServerServices({ ...services, store: await createStore({ kind: 'memory' }) }),
    );
    const response = await app.request('/readyz');
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      checks: {
        defaultProfile: { ok: false, detail: expect.stringContaining('ANTHROPIC_API_KEY') },
      },
    });
  });

  it('hides upstream model URLs from user keys and shows them to admins', {
    timeout: 60_000,
  }, async () => {
    const upstream = 'openai-compatible/qwen@http://10.0.0.7:8000/v1';
    const model = offlineModel('testkit:needle-finder');
    await using server = await startTestServer({
      engine: createExecutorEngine({
        resolveModel: () => ({ ...model, id: upstream }),
        isolation: 'inline',
      }),
      config: { profiles: { default: { model: upstream } } },
    });
    const created = (await (
      await server.request('/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'What is the magic number?',
          context: 'The magic number is 7.',
        }),
      })
    ).json()) as { id: string; model: string };
    expect(created.model).toBe('openai-compatible/qwen');
    const events = await (await server.request(`/v1/runs/${created.id}/events`)).text();
    expect(events).not.toContain('10.0.0.7');
    const trajectory = await (await server.request(`/v1/runs/${created.id}/trajectory`)).text();
    expect(trajectory).not.toContain('10.0.0.7');
    const asAdmin = (await (
      await server.request(`/v1/runs/${created.id}`, { key: server.adminKey })
    ).json()) as { model: string };
    expect(asAdmin.model).toBe(upstream);
  });
});
