import { emptyUsage, type RunEvent } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import type { RunEngine } from './run-engine.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer } from './test-support/start-test-server.js';

/** An engine whose run's REPL was reset once (as the executor reports it) before it answered. */
const resetOnce: RunEngine = {
  async run(input) {
    const base = { v: 1, runId: input.runId, parentRunId: null, rootRunId: input.runId, depth: 0 };
    const emit = (event: Record<string, unknown>) =>
      input.onEvent({ ...base, at: Date.now(), ...event } as RunEvent);
    emit({
      type: 'run-start',
      query: input.query,
      model: 'scripted/model',
      context: [],
      maxIterations: 5,
      maxDepth: 1,
      promptVersion: 'scripted',
    });
    const usage = emptyUsage();
    emit({
      type: 'run-end',
      status: 'completed',
      answer: 'done',
      partialAnswer: null,
      usage,
      sandboxResets: 1,
      iterations: 2,
      durationMs: 1,
    });
    return {
      runId: input.runId,
      rootRunId: input.runId,
      parentRunId: null,
      depth: 0,
      model: 'scripted/model',
      query: input.query,
      answer: 'done',
      status: 'completed',
      partialAnswer: null,
      usage,
      sandboxResets: 1,
      iterations: 2,
      executionTime: 1,
      trajectoryPath: null,
      error: null,
    };
  },
};

describe('the run view reports a reset REPL', () => {
  it('shows sandboxResets in GET /v1/runs/:id', async () => {
    await using server = await startTestServer({ engine: resetOnce });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q', context: 'c' }),
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    for await (const message of readSse(await server.request(`/v1/runs/${id}/events`))) {
      if (message.event === 'end') break;
    }
    const run = await (await server.request(`/v1/runs/${id}`)).json();
    expect(run).toMatchObject({ status: 'completed', sandboxResets: 1 });
  });
});
