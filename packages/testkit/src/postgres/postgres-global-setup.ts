import type { TestProject } from 'vitest/node';
import { type RunningPostgres, startPostgres } from './start-postgres.js';

/** The test server's superuser URL, or why there is none. */
export type TestPostgres = { url: string; version: string } | { url: null; reason: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestPostgres;
  }
}

export interface PostgresGlobalSetupOptions {
  /** Who needs the server, named in its messages, e.g. `@rlm/memory`. */
  packageName: string;
  /** What the server is for, e.g. `the store tests`. */
  purpose: string;
}

/** The `setup` export of a vitest global setup file. */
export type PostgresGlobalSetup = (project: TestProject) => Promise<() => Promise<void>>;

/**
 * Makes a vitest global setup: one Postgres server for the whole test run (see `startPostgres`),
 * stopped when it ends; tests create a database each with `createTestDatabase`. When the server
 * cannot start, a CI run fails here; elsewhere this warns, and the Postgres cases report
 * themselves skipped with the reason (`testPostgres().url` is then `null`).
 */
export function createPostgresGlobalSetup({
  packageName,
  purpose,
}: PostgresGlobalSetupOptions): PostgresGlobalSetup {
  return async function setupPostgres(project) {
    // biome-ignore lint/style/noProcessEnv: test infrastructure: where the binaries are, and whether this is CI
    const { RLM_POSTGRES_BIN: binDir, CI: ci } = process.env;
    let server: RunningPostgres;
    try {
      server = await startPostgres({ binDir });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (ci === 'true') {
        throw new Error(
          `${packageName}: could not start PostgreSQL, which ${purpose} need in CI (install Debian's "postgresql" package, or set RLM_POSTGRES_BIN to a directory with initdb and postgres): ${reason}`,
          { cause: error },
        );
      }
      process.stderr.write(
        `\n${packageName}: WARNING: could not start PostgreSQL, so ${purpose} are NOT run: ${reason}\n\n`,
      );
      project.provide('postgres', { url: null, reason });
      return async () => undefined;
    }
    project.provide('postgres', { url: server.url, version: server.version });
    return () => server.stop();
  };
}
