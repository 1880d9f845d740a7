/**
 * @packageDocumentation `@rlm/testkit/postgres`: a vitest global setup that starts one throwaway
 * Postgres for a test run, and a database of its own per test. A subpath of its own because it
 * needs `vitest` and `pg`, which the main entry (used by apps at run time) must not load.
 */

// ── Global setup ────────────────────────

export {
  createPostgresGlobalSetup,
  type PostgresGlobalSetup,
  type PostgresGlobalSetupOptions,
  type TestPostgres,
} from './postgres-global-setup.js';

// ── In tests ────────────────────────────

export {
  createTestDatabase,
  type TestDatabase,
  testPostgres,
  withClient,
} from './create-test-database.js';
