import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { RlmError } from '@rlm/protocol';
import { type Logger, pino } from 'pino';
import { claimDataDir, type DataDirClaim } from './claim-data-dir.js';
import { openCluster } from './cluster/open-cluster.js';
import { createPostgresApiKeyStore } from './cluster/postgres-api-key-store.js';
import { createServer } from './create-server.js';
import { createExecutorEngine, type ModelResolver } from './executor-engine.js';
import { createFileApiKeyStore } from './file-api-key-store.js';
import { loadServerConfig } from './load-server-config.js';
import { openServerStore } from './open-server-store.js';
import { preparePythonProfiles } from './prepare-python-profiles.js';
import { prepareStartupGuide } from './prepare-startup-guide.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import type { ServerConfig } from './server-config.js';
import { createServerServices } from './server-services.js';

/** A started server: its URL and a graceful stop. */
export interface RunningServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the server from the environment: config, pino logger (JSON to stdout), the data
 * directory's lock (`claimDataDir`), the store, the key file, recovery of unfinished runs, then
 * listening and the start-up guide. The only place that reads env.
 */
export async function main({
  env = process.env,
  resolveModel,
}: {
  env?: Readonly<Record<string, string | undefined>>;
  resolveModel?: ModelResolver;
} = {}): Promise<RunningServer> {
  const config = await loadServerConfig(env);
  const logger = pino({
    level: config.logLevel,
    // Belt and braces: even if a caller logs headers, the key never reaches the output.
    redact: ['req.headers.authorization', 'headers.authorization', '*.apiKey', '*.token'],
  });
  // First of all: a second server on this directory stops here, before it touches any run.
  const claim = await claimDataDir(config);
  try {
    return await start({ config, logger, env, resolveModel, claim });
  } catch (error) {
    claim.release();
    throw error;
  }
}

async function start({
  config,
  logger,
  env,
  resolveModel,
  claim,
}: {
  config: ServerConfig;
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
  resolveModel: ModelResolver | undefined;
  claim: DataDirClaim;
}): Promise<RunningServer> {
  await preparePythonProfiles(config, logger);
  const store = await openServerStore(config.store);
  const cluster =
    config.store.kind === 'postgres'
      ? await openCluster({ url: config.store.url, lease: config.cluster, logger }).catch(
          async (error: unknown) => {
            await store.close();
            throw error;
          },
        )
      : undefined;
  const keys =
    cluster === undefined
      ? createFileApiKeyStore(join(config.dataDir, 'api-keys.json'))
      : createPostgresApiKeyStore(cluster.pool);
  const resolver = resolveModel ?? createProductionModelResolver(env);
  const engine = createExecutorEngine({
    resolveModel: resolver,
    callCaches: { [store.kind]: store.callCache },
  });
  const { version } = JSON.parse(
    await readFile(new URL('../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  const services = createServerServices({
    config,
    store,
    keys,
    engine,
    logger,
    version,
    checkModel: (modelId) => void resolver(modelId),
    resolveModel: resolver,
    ...(cluster === undefined ? {} : { cluster }),
  });
  const app = createServer(services);
  // Before recovery: data a crash left without metadata is no context of any run.
  const swept = await services.contexts.sweep();
  if (swept > 0) logger.info({ swept }, 'removed orphaned context files');
  const recovered = await services.runs.recover();
  logger.info(recovered, 'recovered unfinished runs');
  const logStartupGuide = await prepareStartupGuide(services, logger);
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', (error: Error) =>
      reject(
        new RlmError({
          code: 'config.invalid',
          message: `Cannot listen on ${config.host}:${config.port}: ${error.message}`,
          details: { source: 'host/port', issues: [`port: ${error.message}`] },
          cause: error,
        }),
      ),
    );
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  logger.info(
    {
      url,
      store: config.store.kind,
      ...(cluster === undefined ? {} : { replica: cluster.replicaId }),
    },
    'listening',
  );
  logStartupGuide(url);
  return {
    url,
    async stop() {
      logger.info({ graceMs: config.shutdownGraceMs }, 'shutting down');
      // No new connections; requests on open ones get 503 for new runs while running ones finish.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await services.shutdown(config.shutdownGraceMs);
      (server as Server).closeAllConnections();
      await closed;
      await cluster?.close();
      await store.close();
      claim.release();
      logger.info('stopped');
    },
  };
}
