import { createPostgresGlobalSetup } from '@rlm/testkit/postgres';

/** Vitest global setup: one Postgres server for the run; each replica test makes a database. */
export const setup = createPostgresGlobalSetup({
  packageName: '@rlm/server',
  purpose: 'the replica tests',
});
