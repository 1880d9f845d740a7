import { closePythonPool } from '@rlm/sandbox-python';
import { needleHaystack } from '@rlm/testkit';
import { parseTrajectory } from '@rlm/trace';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { preparePythonProfiles } from './prepare-python-profiles.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import { parseServerConfig } from './server-config.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer } from './test-support/start-test-server.js';

afterAll(() => closePythonPool());

const profiles = {
  default: { model: 'testkit:needle-finder' },
  python: { model: 'testkit:needle-finder', repl: 'python' as const },
};

// Python runs load Pyodide interpreters (seconds each on a busy machine).
describe("a profile's repl: 'python'", { timeout: 180_000 }, () => {
  it('loads an interpreter at start-up and says so', async () => {
    const lines: string[] = [];
    const logger = pino({}, { write: (line: string) => void lines.push(line) });
    const config = parseServerConfig({ store: { kind: 'memory' }, dataDir: '/tmp', profiles });
    await preparePythonProfiles(config, logger);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ msg: 'Python REPL ready', profiles: ['python'] }),
    ]);
  });

  it('runs the profile in a Python REPL, its offline policy writing Python', async () => {
    const task = needleHaystack({ chars: 100_000, seed: 5 });
    const engine = createExecutorEngine({ resolveModel: createProductionModelResolver({}) });
    await using server = await startTestServer({ engine, config: { profiles } });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: task.query, context: task.context, profile: 'python' }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    for await (const _message of readSse(await server.request(`/v1/runs/${id}/events`))) {
      // Drain the stream: it ends with the run.
    }
    const run = await (await server.request(`/v1/runs/${id}`)).json();
    expect(run).toMatchObject({ status: 'completed', answer: task.answer });
    const records = parseTrajectory(
      await (await server.request(`/v1/runs/${id}/trajectory`)).text(),
    );
    expect(records[0]).toMatchObject({ kind: 'header', repl: 'python' });
  });

  it('rejects a profile naming a language no REPL runs', () => {
    expect(() =>
      parseServerConfig({ profiles: { default: { model: 'm', repl: 'ruby' } } }),
    ).toThrow(
      expect.objectContaining({ code: 'config.invalid', message: expect.stringContaining('repl') }),
    );
  });
});
