import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { defaultDataDir } from './default-data-dir.js';
import { parseServerConfig, type ServerConfig } from './server-config.js';

/** Environment variables the server reads (all optional). */
export const CONFIG_ENV = {
  file: 'RLM_SERVER_CONFIG',
  host: 'RLM_SERVER_HOST',
  port: 'RLM_SERVER_PORT',
  database: 'RLM_SERVER_DB',
  dataDir: 'RLM_SERVER_DATA_DIR',
  logLevel: 'RLM_SERVER_LOG_LEVEL',
  databaseUrl: 'RLM_DATABASE_URL',
} as const;

/**
 * Reads the JSON config file named by `RLM_SERVER_CONFIG` (if any), applies env overrides, and
 * validates the result. `RLM_SERVER_DB=:memory:` selects the in-memory store;
 * `RLM_DATABASE_URL=postgres://…` a shared Postgres (replicas).
 *
 * @throws RlmError `config.invalid` for an unreadable file, bad JSON or bad values
 */
export async function loadServerConfig(
  env: Readonly<Record<string, string | undefined>>,
): Promise<ServerConfig> {
  const path = env[CONFIG_ENV.file];
  let fromFile: Record<string, unknown> = {};
  if (path !== undefined && path !== '') {
    try {
      fromFile = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new RlmError({
        code: 'config.invalid',
        message: `Cannot read the config file ${path} (${CONFIG_ENV.file}): ${(error as Error).message}`,
        details: { source: path, issues: ['file: unreadable or not JSON'] },
        cause: error,
      });
    }
  }
  const overrides = envOverrides(env);
  const merged = { dataDir: defaultDataDir(env), ...fromFile, ...overrides };
  return parseServerConfig(merged, path ?? 'environment');
}

/** The config fields the environment sets; the database follows the data directory unless set. */
function envOverrides(env: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== '') overrides[key] = value;
  };
  set('host', env[CONFIG_ENV.host]);
  const port = env[CONFIG_ENV.port] || env['PORT'];
  set('port', port ? Number(port) : undefined);
  set('logLevel', env[CONFIG_ENV.logLevel]);
  const database = env[CONFIG_ENV.database];
  const dataDir = env[CONFIG_ENV.dataDir];
  set('dataDir', dataDir === undefined || dataDir === '' ? undefined : resolve(dataDir));
  if (database) {
    set('store', database === ':memory:' ? { kind: 'memory' } : { kind: 'sqlite', path: database });
  }
  // Postgres wins over a SQLite path: the replicas' shared database.
  set(
    'store',
    env[CONFIG_ENV.databaseUrl]
      ? { kind: 'postgres', url: env[CONFIG_ENV.databaseUrl] }
      : undefined,
  );
  return overrides;
}
