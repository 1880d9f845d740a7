import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import { createTestDatabase, testPostgres } from '@rlm/testkit/postgres';
import { describe, expect, it } from 'vitest';
import { runBash } from './test-support/run-bash.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

const POSTGRES = testPostgres();

/** The ```bash blocks between the api-examples markers of the README, in order. */
async function readmeExamples(): Promise<string[]> {
  const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
  const section =
    readme.split('<!-- api-examples:start -->')[1]?.split('<!-- api-examples:end -->')[0] ?? '';
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

// The same examples against one server alone, on the in-memory store and on its default SQLite
// file, and against a replica on Postgres (store, queue, leases, contexts and limits there).
const STORES = [
  'in-memory store',
  'SQLite file',
  ...(POSTGRES.url === null ? [] : ['Postgres replica']),
] as const;

describe.each(STORES)('README API examples (%s)', (kind) => {
  it('run as written and answer the statuses they document', { timeout: 180_000 }, async () => {
    const blocks = await readmeExamples();
    expect(blocks.length).toBeGreaterThan(8);
    const script = blocks.join('\n');
    const expected = [...script.matchAll(/# expect: ([\d|]+)/g)].map((match) => match[1] ?? '');
    await using database = kind === 'Postgres replica' ? await createTestDatabase() : undefined;
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(() => 'FINAL(2)')),
      ...(database === undefined ? {} : { postgres: { url: database.url } }),
      sqlite: kind === 'SQLite file',
      // The agents example uses the compact profile of examples/offline.json.
      config: {
        profiles: {
          default: { model: 'scripted/model' },
          compact: { model: 'scripted/model', promptStyle: 'compact' },
        },
      },
    });
    expect(server.services.store.kind).toBe(
      { 'in-memory store': 'memory', 'SQLite file': 'sqlite', 'Postgres replica': 'postgres' }[
        kind
      ],
    );
    const cwd = await mkdtemp(join(tmpdir(), 'rlm-readme-'));
    try {
      // Every curl reports its status on stderr, leaving stdout as the example shows it.
      const prelude = `set -u\ncurl() { command curl --write-out '%{stderr}HTTP %{http_code}\\n' "$@"; }\n`;
      const result = await runBash(prelude + script, {
        cwd,
        env: {
          ...process.env,
          RLM_URL: server.url,
          RLM_KEY: server.userKey,
          RLM_ADMIN_KEY: server.adminKey,
        },
      });
      const statuses = [...result.stderr.matchAll(/^HTTP (\d{3})$/gm)].map((match) => match[1]);
      expect(result.code, result.stderr).toBe(0);
      expect(statuses.length).toBe(expected.length);
      for (const [index, status] of statuses.entries()) {
        expect(expected[index]?.split('|'), `curl #${index + 1}`).toContain(status);
      }
      expect(result.stdout).toContain('"answer":"2"');
      expect(result.stdout).toContain('data: [DONE]');
      // The MCP session's block counted the loaded lines.
      expect(result.stdout).toContain('"content":[{"type":"text","text":"3"}]');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
