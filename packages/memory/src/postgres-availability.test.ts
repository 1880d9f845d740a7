import { withClient } from '@rlm/testkit/postgres';
import { describe, expect, it } from 'vitest';
import { POSTGRES } from './__fixtures__/open-test-store.js';

describe('the test PostgreSQL server', () => {
  if (POSTGRES.url === null) {
    // Outside CI a machine without PostgreSQL still runs the other backends; this makes the gap
    // visible in the summary instead of silent (in CI the global setup fails instead).
    // biome-ignore lint/suspicious/noSkippedTests: reports a missing server as a skipped test, by design
    it.skip(`could not start, so the Postgres backend is NOT tested: ${POSTGRES.reason}`, () => {});
    return;
  }
  const { url } = POSTGRES;

  // Postgres itself refuses to run as root, so a server that answers runs as another user.
  it('answers on 127.0.0.1', async () => {
    const row = await withClient(url, async (client) => {
      const result = await client.query<{ version: string; address: string }>(
        'SELECT version(), host(inet_server_addr()) AS address',
      );
      return result.rows[0];
    });
    expect(row?.version).toMatch(/^PostgreSQL \d+/);
    expect(row?.address).toBe('127.0.0.1');
  });
});
