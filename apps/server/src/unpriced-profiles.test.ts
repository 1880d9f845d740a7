import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { prepareStartupGuide } from './prepare-startup-guide.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import { parseServerConfig } from './server-config.js';
import { unpricedProfiles } from './unpriced-profiles.js';

// Resolving a model builds its client; nothing is sent anywhere.
const resolveModel = createProductionModelResolver({ OPENAI_API_KEY: 'sk-test' });
const LOCAL = 'openai-compatible/llama@http://127.0.0.1:9/v1';

const config = parseServerConfig({
  dataDir: '/tmp/unused',
  profiles: {
    default: { model: 'openai/gpt-4o-mini' },
    offline: { model: 'testkit:needle-finder' },
    local: { model: LOCAL },
    mixed: { model: 'openai/gpt-4o-mini', subModel: LOCAL },
  },
});

describe('profiles the dollar cap cannot limit', () => {
  it('names each profile with a model of no known price, and the models', () => {
    expect(unpricedProfiles(config, resolveModel)).toEqual([
      { profile: 'local', models: [LOCAL] },
      { profile: 'mixed', models: [LOCAL] },
    ]);
  });

  it('leaves a model the resolver refuses to the readiness check', () => {
    const refusing = parseServerConfig({
      dataDir: '/tmp/unused',
      profiles: { default: { model: 'anthropic/claude-sonnet-4-5' } },
    });
    expect(unpricedProfiles(refusing, createProductionModelResolver({}))).toEqual([]);
  });

  it('warns at start-up that their runs get no dollar cap', async () => {
    const lines: string[] = [];
    const logger = pino({}, { write: (line: string) => void lines.push(line) });
    const services = {
      config,
      resolveModel,
      keys: { list: async () => [] },
      readiness: async () => ({ defaultProfile: { ok: true } }),
    };
    const log = await prepareStartupGuide(services as never, logger);
    log('http://127.0.0.1:1');
    const warnings = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string; profile?: string })
      .filter((entry) => entry.profile !== undefined);
    expect(warnings.map((entry) => entry.profile)).toEqual(['local', 'mixed']);
    expect(warnings[0]).toMatchObject({ level: 40, maxCostUsd: 5, models: [LOCAL] });
    expect(warnings[0]?.msg).toContain('its runs get no dollar cap');
  });
});
