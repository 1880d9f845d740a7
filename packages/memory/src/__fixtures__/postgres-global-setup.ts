import type { TestProject } from 'vitest/node';
import { type RunningPostgres, startPostgres } from '@rlm/testkit';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's superuser URL, or why there is none. */
    postgres: { url: string; version: string } | { url: null; reason: string };
  }
}

/**
 * Vitest global setup: one Postgres server for the whole test run, stopped when it ends (tests
 * create a database each, see `openTestStore`). When the server cannot start, a CI run fails
 * here; elsewhere this warns, and the Postgres cases are reported as skipped with the reason.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  // biome-ignore lint/style/noProcessEnv: test infrastructure: where the binaries are, and whether this is CI
  const { RLM_POSTGRES_BIN: binDir, CI: ci } = process.env;
  let server: RunningPostgres;
  try {
    server = await startPostgres({ binDir });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (ci === 'true') {
      throw new Error(
        `@rlm/memory: could not start PostgreSQL, which the store tests need in CI (install Debian's "postgresql" package, or set RLM_POSTGRES_BIN to a directory with initdb and postgres): ${reason}`,
        { cause: error },
      );
    }
    process.stderr.write(
      `\n@rlm/memory: WARNING: could not start PostgreSQL, so the Postgres backend is NOT tested: ${reason}\n\n`,
    );
    project.provide('postgres', { url: null, reason });
    return async () => undefined;
  }
  project.provide('postgres', { url: server.url, version: server.version });
  return () => server.stop();
}
