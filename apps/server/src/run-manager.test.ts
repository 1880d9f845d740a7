import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@rlm/memory';
import type { LanguageModel, RunEvent } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { openServerStore } from './open-server-store.js';
import type { ServerConfigInput } from './server-config.js';
import { deferred } from './test-support/read-sse.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

// Two servers in a row over one store and data directory: the first is shut down mid-run, the
// second starts over what it left behind, as a restarted process would.
let persistent: { store: Store; dataDir: string };

beforeEach(async () => {
  persistent = {
    store: await openServerStore({ kind: 'memory' }),
    dataDir: await mkdtemp(join(tmpdir(), 'rlm-server-restart-')),
  };
});

afterEach(async () => {
  await persistent.store.close();
  await rm(persistent.dataDir, { recursive: true, force: true });
});

function serverWith(model: LanguageModel, config: Partial<ServerConfigInput> = {}) {
  const engine = createExecutorEngine({ resolveModel: () => model, isolation: 'inline' });
  return startTestServer({ engine, config, persistent });
}

async function startRun(server: TestServer, config?: Record<string, number>): Promise<string> {
  const response = await server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'How long is it?', context: 'abcdef', config }),
  });
  return ((await response.json()) as { id: string }).id;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function restartAndFinish(model: LanguageModel, runId: string) {
  await using second = await serverWith(model);
  expect(await second.services.runs.recover()).toEqual({ requeued: [runId], interrupted: [] });
  await waitFor(async () => !second.services.runs.isActive(runId), 'the resumed run to end');
  const response = await second.request(`/v1/runs/${runId}`, { key: second.adminKey });
  return (await response.json()) as Record<string, unknown>;
}

async function storedEvents(runId: string): Promise<{ seq: number; event: RunEvent }[]> {
  return persistent.store.runs.eventsAfter(runId, 0);
}

/** The root's start, resume, notice and end events, in order (`run-resume:<fromIteration>`). */
function rootLifecycle(events: readonly { event: RunEvent }[]): string[] {
  return events.flatMap(({ event }) => {
    if (event.depth !== 0) return [];
    if (event.type === 'run-resume') return [`run-resume:${event.fromIteration}`];
    return ['run-start', 'error', 'run-end'].includes(event.type) ? [event.type] : [];
  });
}

function rootIterations(events: readonly { event: RunEvent }[]): number[] {
  return events.flatMap(({ event }) =>
    event.type === 'iteration-start' && event.depth === 0 ? [event.iteration] : [],
  );
}

describe('run manager across a restart', () => {
  it('stops a run at the end of its turn on shutdown and resumes it from that checkpoint', async () => {
    const turnTwo = deferred<string>();
    const first = scriptedModel([
      '```repl\nconst size = context.length;\nprint(size)\n```',
      () => turnTwo.promise,
    ]);
    const runId = await (async () => {
      await using server = await serverWith(first);
      const id = await startRun(server);
      await waitFor(() => first.requests.length === 2, 'the second turn');
      const stopping = server.services.shutdown(60_000);
      turnTwo.resolve('```repl\nconst doubled = size * 2;\nprint(doubled)\n```');
      await stopping;
      return id;
    })();
    expect(await persistent.store.runs.getRun(runId)).toMatchObject({ status: 'queued' });
    expect((await persistent.store.runs.latestCheckpoint(runId))?.turn).toBe(1);
    const second = scriptedModel(['FINAL_VAR(doubled)']);
    const view = await restartAndFinish(second, runId);
    expect(view).toMatchObject({ status: 'completed', answer: '12' });
    // Only the third turn reached a model after the restart, with both earlier outputs in it.
    expect(second.requests).toHaveLength(1);
    const prompt = second.requests[0]?.messages.map((message) => message.content).join('\n');
    expect(prompt).toContain('12');
    // Usage counts every call, before and after the restart.
    const usage = view['usage'] as { models: Record<string, { calls: number }> };
    expect(Object.values(usage.models).reduce((sum, model) => sum + model.calls, 0)).toBe(3);
    const events = await storedEvents(runId);
    expect(events.map((stored) => stored.seq)).toEqual(events.map((_, index) => index + 1));
    expect(rootIterations(events)).toEqual([0, 1, 2]);
    // One run: one start, the server's notices (shutdown, restart), the executor's own resume
    // marker, one end.
    expect(rootLifecycle(events)).toEqual([
      'run-start',
      'error',
      'error',
      'run-resume:2',
      'run-end',
    ]);
    const trajectory = await persistent.store.runs.trajectory(runId);
    expect(trajectory.filter((record) => record.kind === 'header')).toHaveLength(1);
    const modelCalls = trajectory.filter((record) => record.kind === 'model-exchange');
    expect(modelCalls).toHaveLength(3);
    expect(events.at(-1)?.event).toMatchObject({ type: 'run-end', status: 'completed' });
  });

  it('leaves a run whose turn outlasts the grace period queued, and resumes it from its last checkpoint', async () => {
    const first = scriptedModel([
      '```repl\nconst size = context.length;\nprint(size)\n```',
      () => new Promise<string>(() => undefined),
    ]);
    const runId = await (async () => {
      await using server = await serverWith(first);
      const id = await startRun(server);
      await waitFor(() => first.requests.length === 2, 'the second turn');
      await server.services.shutdown(50);
      return id;
    })();
    expect(await persistent.store.runs.getRun(runId)).toMatchObject({ status: 'queued' });
    const second = scriptedModel(['FINAL_VAR(size)']);
    expect(await restartAndFinish(second, runId)).toMatchObject({
      status: 'completed',
      answer: '6',
    });
    expect(second.requests).toHaveLength(1);
    const events = await storedEvents(runId);
    // The cut-off second turn started before the stop and again after it; the first ran once.
    expect(rootIterations(events)).toEqual([0, 1, 1]);
    expect(events.map((stored) => stored.seq)).toEqual(events.map((_, index) => index + 1));
  });

  it('runs a run stopped before its first checkpoint again from its first turn', async () => {
    const first = scriptedModel([() => new Promise<string>(() => undefined)]);
    const runId = await (async () => {
      await using server = await serverWith(first);
      const id = await startRun(server);
      await waitFor(() => first.requests.length === 1, 'the first turn');
      await server.services.shutdown(50);
      return id;
    })();
    expect(await persistent.store.runs.latestCheckpoint(runId)).toBeUndefined();
    const second = scriptedModel(['```repl\nprint(context.length)\n```', 'FINAL(6)']);
    expect(await restartAndFinish(second, runId)).toMatchObject({
      status: 'completed',
      answer: '6',
    });
    expect(second.requests).toHaveLength(2);
    const events = await storedEvents(runId);
    expect(rootIterations(events)).toEqual([0, 0, 1]);
    // Run again from its first turn, still as one run: no second start, no second header.
    expect(rootLifecycle(events)).toEqual([
      'run-start',
      'error',
      'error',
      'run-resume:0',
      'run-end',
    ]);
    const trajectory = await persistent.store.runs.trajectory(runId);
    expect(trajectory.filter((record) => record.kind === 'header')).toHaveLength(1);
  });

  it('keeps the real end reason of a run that went over its budget after a restart', async () => {
    const first = scriptedModel([
      '```repl\nconst size = context.length;\nprint(size)\n```',
      () => new Promise<string>(() => undefined),
    ]);
    const runId = await (async () => {
      await using server = await serverWith(first);
      const id = await startRun(server, { maxSubcalls: 1 });
      await waitFor(() => first.requests.length === 2, 'the second turn');
      await server.services.shutdown(50);
      return id;
    })();
    // After the restart the turn asks two sub-calls of a budget of one.
    const second = scriptedModel([
      '```repl\nconst a = await llm_query("one")\nconst b = await llm_query("two")\n```',
      'sub answer',
    ]);
    const view = await restartAndFinish(second, runId);
    expect(view).toMatchObject({
      status: 'budget_exceeded',
      error: { code: 'executor.budget_exceeded' },
    });
    // The restart notice is in the log, but it is not why the run ended.
    const events = await storedEvents(runId);
    expect(
      events.some(
        ({ event }) => event.type === 'error' && event.error.code === 'server.unavailable',
      ),
    ).toBe(true);
    expect(events.at(-1)?.event).toMatchObject({
      type: 'run-end',
      status: 'budget_exceeded',
      error: { code: 'executor.budget_exceeded' },
    });
  });

  it('interrupts a run on shutdown when restarts do not resume runs', async () => {
    const model = scriptedModel([() => new Promise<string>(() => undefined)]);
    await using server = await serverWith(model, { onRestart: 'interrupt' });
    const runId = await startRun(server);
    await waitFor(() => model.requests.length === 1, 'the first turn');
    await server.services.shutdown(50);
    const view = (await (await server.request(`/v1/runs/${runId}`)).json()) as {
      status: string;
      error: { code: string; message: string };
    };
    expect(view).toMatchObject({ status: 'interrupted', error: { code: 'server.unavailable' } });
    expect(view.error.message).toContain('grace period');
  });
});
