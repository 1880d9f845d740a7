import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Store } from '@rlm/memory';
import { pino } from 'pino';
import { type ApiKeyStore, generateApiKey } from '../api-key-store.js';
import { openCluster } from '../cluster/open-cluster.js';
import { createServer } from '../create-server.js';
import type { ModelResolver } from '../executor-engine.js';
import { createMemoryApiKeyStore } from '../memory-api-key-store.js';
import { openServerStore } from '../open-server-store.js';
import type { RunEngine } from '../run-engine.js';
import { parseServerConfig, type ServerConfigInput } from '../server-config.js';
import { createServerServices, type ServerServices } from '../server-services.js';

/** A server on 127.0.0.1 with three keys (admin, user, other user) and captured JSON logs. */
export interface TestServer extends AsyncDisposable {
  url: string;
  adminKey: string;
  userKey: string;
  otherKey: string;
  keys: ApiKeyStore;
  services: ServerServices;
  /** Every log line the server wrote, parsed. */
  logs: Record<string, unknown>[];
  rawLogs: string[];
  /** `fetch` against the server with a key (`null`: no Authorization header). */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  close(): Promise<void>;
}

export interface StartTestServerOptions {
  engine: RunEngine;
  config?: Partial<ServerConfigInput>;
  /**
   * A store (and data directory) that outlive the server, so a second server can start over what
   * the first left behind (a restart). Both are the caller's to remove.
   */
  persistent?: { store: Store; dataDir: string };
  /**
   * Runs the server as a replica on this Postgres database (a store, queue and leases there),
   * as `RLM_DATABASE_URL` does; keys are still kept in memory.
   */
  postgres?: { url: string };
  /** Keeps runs, events, conversations and layers in `rlm-server.db` in the data directory, the server's default store. */
  sqlite?: boolean;
  /** Another test server whose keys this one accepts (replicas share their keys). */
  keysFrom?: TestServer;
  /** Model clients for calls outside runs (the `/mcp` sessions' `llm_query`), as `main` gives. */
  resolveModel?: ModelResolver;
}

/** Starts a real HTTP server on an ephemeral port over an in-memory store (or the one asked for). */
export async function startTestServer({
  engine,
  config = {},
  persistent,
  postgres,
  sqlite = false,
  keysFrom,
  resolveModel,
}: StartTestServerOptions): Promise<TestServer> {
  const dataDir = persistent?.dataDir ?? (await mkdtemp(join(tmpdir(), 'rlm-server-test-')));
  const storeConfig =
    postgres !== undefined
      ? ({ kind: 'postgres', url: postgres.url } as const)
      : sqlite
        ? ({ kind: 'sqlite', path: join(dataDir, 'rlm-server.db') } as const)
        : ({ kind: 'memory' } as const);
  const parsed = parseServerConfig({
    store: storeConfig,
    cluster: { leaseMs: 2_000, heartbeatMs: 250, pollMs: 200 },
    dataDir,
    profiles: { default: { model: 'scripted/model' } },
    logLevel: 'info',
    ...config,
  });
  const store = persistent?.store ?? (await openServerStore(storeConfig));
  const admin = generateApiKey({ name: 'admin', role: 'admin' });
  const user = generateApiKey({ name: 'user', role: 'user' });
  const other = generateApiKey({ name: 'other', role: 'user' });
  if (keysFrom !== undefined) {
    admin.token = keysFrom.adminKey;
    user.token = keysFrom.userKey;
    other.token = keysFrom.otherKey;
  }
  const keys = keysFrom?.keys ?? createMemoryApiKeyStore([admin.record, user.record, other.record]);
  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: parsed.logLevel },
    {
      write(line: string) {
        rawLogs.push(line);
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  const cluster =
    postgres === undefined
      ? undefined
      : await openCluster({ url: postgres.url, lease: parsed.cluster, logger });
  const services = createServerServices({
    config: parsed,
    store,
    keys,
    engine,
    logger,
    ...(cluster === undefined ? {} : { cluster }),
    ...(resolveModel === undefined ? {} : { resolveModel }),
  });
  const app = createServer(services);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await services.shutdown(0);
    (server as Server).closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await cluster?.close();
    if (persistent !== undefined) return;
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  return {
    url,
    adminKey: admin.token,
    userKey: user.token,
    otherKey: other.token,
    keys,
    services,
    logs,
    rawLogs,
    request(path, init = {}) {
      const { key = user.token, headers, ...rest } = init;
      const merged = new Headers(headers);
      if (key !== null) merged.set('authorization', `Bearer ${key}`);
      return fetch(`${url}${path}`, { ...rest, headers: merged });
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
