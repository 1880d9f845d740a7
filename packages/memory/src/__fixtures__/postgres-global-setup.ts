import { createPostgresGlobalSetup } from '@rlm/testkit/postgres';

/** Vitest global setup: one Postgres server for the run; `openTestStore` makes a database each. */
export const setup = createPostgresGlobalSetup({
  packageName: '@rlm/memory',
  purpose: 'the Postgres store tests',
});
