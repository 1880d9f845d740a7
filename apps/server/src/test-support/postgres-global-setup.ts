import { type RunningPostgres, startPostgres } from '@rlm/testkit';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's superuser URL, or why there is none. */
    postgres: { url: string; version: string } | { url: null; reason: string };
  }
}

/**
 * Vitest global setup: one PostgreSQL (Debian's binaries, a temp directory, 127.0.0.1) for the
 * server's replica tests, each of which creates a database of its own. In CI a server that cannot
 * start fails the run; elsewhere the Postgres tests report themselves skipped with the reason.
 */
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { RLM_POSTGRES_BIN: binDir, CI: ci } = process.env;
  let server: RunningPostgres;
  try {
    server = await startPostgres({ binDir });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (ci === 'true') {
      throw new Error(
        `@rlm/server: could not start PostgreSQL, which the replica tests need in CI (install Debian's "postgresql" package): ${reason}`,
        { cause: error },
      );
    }
    process.stderr.write(
      `\n@rlm/server: WARNING: could not start PostgreSQL, so the replica tests are NOT run: ${reason}\n\n`,
    );
    project.provide('postgres', { url: null, reason });
    return async () => undefined;
  }
  project.provide('postgres', { url: server.url, version: server.version });
  return () => server.stop();
}
