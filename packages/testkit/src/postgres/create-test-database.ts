import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { TestPostgres } from './postgres-global-setup.js';

/** A database of its own on the test Postgres server. */
export interface TestDatabase extends AsyncDisposable {
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

/**
 * The test server a `createPostgresGlobalSetup` global setup started, or why there is none, asked
 * of vitest in a test worker (not in the global setup itself, where
 * vitest has nothing to inject).
 */
export function testPostgres(): TestPostgres {
  return inject('postgres');
}

/**
 * Creates an empty database on the test server, so every test starts from nothing and tests in
 * parallel files never see each other's rows.
 * @throws Error when there is no test server (the caller should not have asked for Postgres)
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = testPostgres();
  if (server.url === null) throw new Error(`no test Postgres server: ${server.reason}`);
  const adminUrl = server.url;
  const name = `rlm_test_${randomUUID().replaceAll('-', '')}`;
  await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    await withClient(adminUrl, (client) =>
      client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    );
  };
  return { url: url.toString(), drop, [Symbol.asyncDispose]: drop };
}

/** Runs `work` on a fresh connection to `url`, closed afterwards. */
export async function withClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
