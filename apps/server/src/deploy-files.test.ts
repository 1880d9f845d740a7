import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseServerConfig } from './server-config.js';

// There is no Docker engine where these tests run: the compose file is checked as data (it
// parses, and its services are wired as the README describes), never started.
const DEPLOY = join(import.meta.dirname, '..', 'deploy');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  volumes?: string[];
}

async function compose(): Promise<{ services: Record<string, ComposeService> }> {
  return parse(await readFile(join(DEPLOY, 'docker-compose.yml'), 'utf8'));
}

describe('deploy/docker-compose.yml', () => {
  it('runs Postgres, three replicas on it and a load balancer in front of them', async () => {
    const { services } = await compose();
    expect(Object.keys(services).sort()).toEqual([
      'lb',
      'postgres',
      'replica-1',
      'replica-2',
      'replica-3',
    ]);
    expect(services['postgres']?.image).toMatch(/^postgres:\d+/);
    for (const name of ['replica-1', 'replica-2', 'replica-3']) {
      const replica = services[name];
      expect(replica?.build).toEqual({ context: '../../..', dockerfile: 'apps/server/Dockerfile' });
      expect(replica?.environment?.['RLM_DATABASE_URL']).toMatch(
        /^postgres:\/\/[^@]+@postgres:5432\//,
      );
      expect(replica?.depends_on?.['postgres']?.condition).toBe('service_healthy');
      expect(replica?.healthcheck?.test.join(' ')).toContain('/readyz');
      expect(replica?.stop_grace_period).toBeDefined();
    }
    expect(services['lb']?.ports).toEqual(['8787:8787']);
    expect(Object.keys(services['lb']?.depends_on ?? {}).sort()).toEqual([
      'replica-1',
      'replica-2',
      'replica-3',
    ]);
  });

  it('mounts a server config the server accepts, with the lease shorter than the stop grace', async () => {
    const config = parseServerConfig(
      JSON.parse(await readFile(join(DEPLOY, 'server.json'), 'utf8')),
      'deploy/server.json',
    );
    const { services } = await compose();
    const grace = Number.parseInt(services['replica-1']?.stop_grace_period ?? '0', 10) * 1000;
    expect(config.shutdownGraceMs).toBeLessThan(grace);
    expect(config.cluster.heartbeatMs * 2).toBeLessThanOrEqual(config.cluster.leaseMs);
  });

  it('balances over the three replicas with unbuffered, long-lived event streams', async () => {
    const nginx = await readFile(join(DEPLOY, 'nginx.conf'), 'utf8');
    for (const name of ['replica-1', 'replica-2', 'replica-3']) {
      expect(nginx).toContain(`server ${name}:8787`);
    }
    expect(nginx).toMatch(/proxy_buffering off;/);
    expect(nginx).toMatch(/proxy_read_timeout 1h;/);
    expect(nginx).toMatch(/proxy_next_upstream [^;]*http_503[^;]*non_idempotent;/);
  });
});
