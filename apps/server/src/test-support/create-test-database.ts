import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The test Postgres server, or why there is none (see `postgres-global-setup.ts`). */
export const POSTGRES = inject('postgres');

/** A database of its own on the test server. */
export interface TestDatabase extends AsyncDisposable {
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

/** Creates an empty database, so tests in parallel files never see each other's rows. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (POSTGRES.url === null) throw new Error(`no test Postgres server: ${POSTGRES.reason}`);
  const adminUrl = POSTGRES.url;
  const name = `rlm_server_${randomUUID().replaceAll('-', '')}`;
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

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
