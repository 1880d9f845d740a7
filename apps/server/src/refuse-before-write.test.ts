import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createContextStore } from './context-store.js';
import { openServerStore } from './open-server-store.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

function submit(server: TestServer, body: object, key?: string) {
  return server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(key === undefined ? {} : { key }),
  });
}

async function contextFiles(server: TestServer): Promise<string[]> {
  const dataDir = server.services.config.dataDir;
  return readdir(join(dataDir, 'contexts')).catch(() => []);
}

describe('refuse before write', () => {
  it('stores the context of admitted runs only, however many arrive at once', async () => {
    const engine = scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));
    await using server = await startTestServer({
      engine,
      config: { limits: { concurrentRunsPerKey: 3 } },
    });
    const big = 'x'.repeat(100_000);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        submit(server, { query: `q${index}`, context: big }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, 202, 202, ...Array(17).fill(429)]);
    const files = await contextFiles(server);
    expect(files.filter((name) => name.endsWith('.data'))).toHaveLength(3);
    expect(files.filter((name) => name.endsWith('.meta.json'))).toHaveLength(3);
    for (const response of responses.filter((candidate) => candidate.status === 202)) {
      const { id } = (await response.json()) as { id: string };
      await server.request(`/v1/runs/${id}/cancel`, { method: 'POST' });
    }
  });

  it('writes nothing for a request refused by auth, rate, body or profile checks', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(['FINAL(1)'])),
      config: { limits: { requestsPerMinute: 2 } },
    });
    expect((await submit(server, { query: 'q', context: 'c' }, 'rlm_wrong')).status).toBe(401);
    expect((await submit(server, { query: '', context: 'c' })).status).toBe(400);
    expect((await submit(server, { query: 'q', context: 'c', profile: 'nope' })).status).toBe(400);
    expect((await submit(server, { query: 'q', context: 'c' })).status).toBe(429);
    expect(await contextFiles(server)).toEqual([]);
  });

  it('leaves no context behind when storing the run fails', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'rlm-refuse-'));
    const store = await openServerStore({ kind: 'memory' });
    store.runs.createRun = async () => {
      throw new RlmError({
        code: 'memory.storage_failed',
        message: 'disk full',
        details: { operation: 'createRun' },
      });
    };
    try {
      await using server = await startTestServer({
        engine: scriptedEngine(() => scriptedModel(['FINAL(1)'])),
        persistent: { store, dataDir },
      });
      expect((await submit(server, { query: 'q', context: 'c' })).status).toBe(500);
      expect(await contextFiles(server)).toEqual([]);
    } finally {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('sweeps context data without metadata, left by a crash, at start', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'rlm-sweep-'));
    try {
      const contexts = createContextStore(directory);
      const kept = await contexts.saveValue(['kept'], { owner: 'key_1' });
      const pending = await contexts.saveValue(['cut off'], { owner: 'key_1', pending: true });
      await writeFile(join(directory, 'ctx_0123456789abcdef01234567.data'), 'half an upload');
      expect(await contexts.meta(pending.id)).toBeUndefined();
      expect(await contexts.sweep()).toBe(2);
      expect((await readdir(directory)).sort()).toEqual(
        [`${kept.id}.data`, `${kept.id}.meta.json`].sort(),
      );
      expect(await contexts.load(kept.id)).toEqual(['kept']);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
