import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_DEPTH, DEFAULT_MODEL_ID } from '@rlm/executor';
import { describe, expect, it } from 'vitest';
import { effectiveBudget } from './effective-budget.js';
import { loadServerConfig } from './load-server-config.js';
import { parseServerConfig } from './server-config.js';

describe('loadServerConfig', () => {
  it('reads the file, then applies env overrides', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-config-'));
    try {
      const file = join(dir, 'config.json');
      await writeFile(
        file,
        JSON.stringify({
          port: 9000,
          profiles: { fast: { model: 'openai/gpt-x' } },
          defaultProfile: 'fast',
        }),
      );
      const config = await loadServerConfig({
        RLM_SERVER_CONFIG: file,
        RLM_SERVER_PORT: '9100',
        RLM_SERVER_DATA_DIR: dir,
      });
      expect(config.port).toBe(9100);
      expect(config.store).toEqual({ kind: 'sqlite', path: `${dir}/rlm-server.db` });
      expect(config.profiles['fast']?.maxIterations).toBe(20);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('selects the in-memory store with RLM_SERVER_DB=:memory:', async () => {
    expect((await loadServerConfig({ RLM_SERVER_DB: ':memory:' })).store).toEqual({
      kind: 'memory',
    });
  });

  it("defaults to the executor's model and depth, the ones the CLI uses too", async () => {
    const config = await loadServerConfig({ RLM_SERVER_DB: ':memory:' });
    expect(config.profiles['default']).toMatchObject({
      model: DEFAULT_MODEL_ID,
      maxDepth: DEFAULT_MAX_DEPTH,
    });
  });

  it('names the bad field in a config.invalid error', async () => {
    await expect(loadServerConfig({ RLM_SERVER_PORT: 'eighty' })).rejects.toMatchObject({
      code: 'config.invalid',
      details: { issues: [expect.stringContaining('port')] },
    });
    expect(() => parseServerConfig({ defaultProfile: 'missing' })).toThrow(
      expect.objectContaining({ code: 'config.invalid' }),
    );
  });
});

describe('effectiveBudget', () => {
  it('caps what a request asks for at the server maxima and fills the rest from the profile', () => {
    const config = parseServerConfig({ maxima: { maxIterations: 10, maxCostUsd: 1 } });
    const profile = config.profiles['default'];
    if (profile === undefined) throw new Error('default profile missing');
    const budget = effectiveBudget(profile, { maxIterations: 500, maxCostUsd: 0.5 }, config.maxima);
    expect(budget.maxIterations).toBe(10);
    expect(budget.maxCostUsd).toBe(0.5);
    expect(budget.maxDepth).toBe(profile.maxDepth);
  });
});
