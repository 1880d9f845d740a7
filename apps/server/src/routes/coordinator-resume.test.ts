import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, TrajectoryRecord } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from '../executor-engine.js';
import { openServerStore } from '../open-server-store.js';
import { withoutSupersededEnds } from '../run-outcome.js';
import { readSse } from '../test-support/read-sse.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';
import {
  isCoordinatorRequest,
  threeTaskCoordinator,
  turnOf,
} from '../test-support/three-task-coordinator.js';

const coordinator = threeTaskCoordinator;

async function coordinatorServer(perTask: Map<string, number>): Promise<TestServer> {
  const model = coordinator(perTask);
  return startTestServer({
    engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    config: {
      profiles: { default: { model: 'scripted/coordinator', mode: 'coordinator', maxDepth: 2 } },
    },
  });
}

async function post(server: TestServer, path: string, body: unknown): Promise<Response> {
  return server.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Follows the run's events until the stream ends; the run's view then. */
async function untilEnd(server: TestServer, id: string, lastEventId = 0) {
  const events: { id: number; event: RunEvent }[] = [];
  const stream = await server.request(`/v1/runs/${id}/events`, {
    headers: { 'last-event-id': String(lastEventId) },
  });
  for await (const message of readSse(stream)) {
    if (message.event === 'end') break;
    events.push({ id: Number(message.id), event: JSON.parse(message.data) as RunEvent });
  }
  const view = (await (await server.request(`/v1/runs/${id}`)).json()) as Record<string, unknown>;
  return { events, view };
}

async function trajectoryEvents(server: TestServer, id: string): Promise<RunEvent[]> {
  const text = await (await server.request(`/v1/runs/${id}/trajectory`)).text();
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TrajectoryRecord)
    .flatMap((record) => (record.kind === 'event' ? [record.event] : []));
}

const withoutSuperseded = (events: readonly RunEvent[]) =>
  withoutSupersededEnds(events, (event) => event);

const rootEnds = (events: readonly RunEvent[]) =>
  events.filter((event) => event.type === 'run-end' && event.depth === 0);

describe('POST /v1/runs/:id/resume on a coordinator run', { timeout: 120_000 }, () => {
  it('continues a budget-stopped run without re-running its two finished tasks, with one run-end', async () => {
    const perTask = new Map<string, number>();
    await using server = await coordinatorServer(perTask);
    const created = await post(server, '/v1/runs', {
      query: 'Join the tasks',
      context: 'the context',
      config: { maxSubcalls: 2 },
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    const stopped = await untilEnd(server, id);
    expect(stopped.view).toMatchObject({ status: 'budget_exceeded', resumable: true });
    expect(stopped.view['links']).toMatchObject({ resume: `/v1/runs/${id}/resume` });
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1 });

    const resumed = await post(server, `/v1/runs/${id}/resume`, { config: { maxSubcalls: 10 } });
    expect(resumed.status).toBe(202);
    expect(await resumed.json()).toMatchObject({ id, resumable: false });
    const lastSeen = stopped.events.at(-1)?.id ?? 0;
    const after = await untilEnd(server, id, lastSeen);
    expect(after.view).toMatchObject({
      status: 'completed',
      answer: 'ONE+TWO+THREE',
      resumable: false,
    });
    expect(after.view['budget']).toMatchObject({ maxSubcalls: 10 });
    expect(after.view['links']).not.toHaveProperty('resume');
    // Neither finished task ran again: no model request, and no task started but the third.
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1, three: 1 });
    expect(after.events[0]?.event).toMatchObject({ type: 'run-resume', fromIteration: 1 });
    const started = after.events.filter(({ event }) => event.type === 'task-start');
    expect(started.map(({ event }) => (event as { task: string }).task)).toEqual(['task three']);

    // What the server serves of the whole run ends once.
    const { events: all } = await untilEnd(server, id);
    expect(rootEnds(all.map(({ event }) => event))).toEqual([
      expect.objectContaining({ status: 'completed' }),
    ]);
    expect(rootEnds(await trajectoryEvents(server, id))).toEqual([
      expect.objectContaining({ status: 'completed' }),
    ]);
  });

  it('continues a cancelled run from its last turn, with one run-end', async () => {
    const perTask = new Map<string, number>();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inner = coordinator(perTask);
    // Turn 1's root request waits on the gate the first time, so the run is cancelled there.
    let held = false;
    const model = scriptedModel(async (request) => {
      if (isCoordinatorRequest(request.system ?? '') && turnOf(request) === 1 && !held) {
        held = true;
        await gate;
      }
      return (await inner.complete(request)).text;
    });
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
      config: {
        profiles: { default: { model: 'scripted/coordinator', mode: 'coordinator', maxDepth: 2 } },
      },
    });
    const { id } = (await (
      await post(server, '/v1/runs', { query: 'Join the tasks', context: 'the context' })
    ).json()) as { id: string };
    const stream = await server.request(`/v1/runs/${id}/events`);
    for await (const message of readSse(stream)) {
      const event = JSON.parse(message.data) as RunEvent;
      if (event.type === 'iteration-start' && event.depth === 0 && event.iteration === 1) break;
    }
    // The checkpoint after turn 0 is written before turn 1 starts.
    expect((await post(server, `/v1/runs/${id}/cancel`, {})).status).toBe(202);
    const cancelled = await untilEnd(server, id);
    expect(cancelled.view).toMatchObject({ status: 'cancelled', resumable: true });
    release();

    expect((await post(server, `/v1/runs/${id}/resume`, {})).status).toBe(202);
    const after = await untilEnd(server, id);
    expect(after.view).toMatchObject({ status: 'completed', answer: 'ONE+TWO+THREE' });
    expect(Object.fromEntries(perTask)).toEqual({ one: 1, two: 1, three: 1 });
    expect(rootEnds(after.events.map(({ event }) => event))).toHaveLength(1);
    expect(rootEnds(await trajectoryEvents(server, id))).toHaveLength(1);
  });

  it('refuses to resume a completed run, and no view offers it', async () => {
    const perTask = new Map<string, number>();
    await using server = await coordinatorServer(perTask);
    const { id } = (await (
      await post(server, '/v1/runs', { query: 'Join the tasks', context: 'the context' })
    ).json()) as { id: string };
    const done = await untilEnd(server, id);
    expect(done.view).toMatchObject({ status: 'completed', resumable: false });
    expect(done.view['links']).not.toHaveProperty('resume');
    const refused = await post(server, `/v1/runs/${id}/resume`, {});
    expect(refused.status).toBe(409);
    expect(JSON.stringify(await refused.json())).toContain('completed');
  });

  it('refuses a run stopped before its first turn finished (nothing to resume from)', async () => {
    const perTask = new Map<string, number>();
    await using server = await coordinatorServer(perTask);
    const { id } = (await (
      await post(server, '/v1/runs', {
        query: 'Join the tasks',
        context: 'the context',
        config: { maxSubcalls: 1 },
      })
    ).json()) as { id: string };
    const stopped = await untilEnd(server, id);
    expect(stopped.view).toMatchObject({ status: 'budget_exceeded', resumable: false });
    const refused = await post(server, `/v1/runs/${id}/resume`, { config: { maxSubcalls: 10 } });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(await refused.json())).toContain('first turn');
  });

  it('keeps the limits it was resumed with when a restart takes the resumed run up again', async () => {
    const perTask = new Map<string, number>();
    const store = await openServerStore({ kind: 'memory' });
    const dataDir = await mkdtemp(join(tmpdir(), 'rlm-coordinator-restart-'));
    const inner = coordinator(perTask);
    let held = false;
    let asked: () => void = () => undefined;
    const taskThreeAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    // The resumed run's task three never answers: the server shuts down under it.
    const model = scriptedModel(async (request) => {
      if (
        !isCoordinatorRequest(request.system ?? '') &&
        JSON.stringify(request.messages).includes('task three') &&
        !held
      ) {
        held = true;
        asked();
        return new Promise<string>(() => undefined);
      }
      return (await inner.complete(request)).text;
    });
    const start = () =>
      startTestServer({
        engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
        config: {
          profiles: {
            default: { model: 'scripted/coordinator', mode: 'coordinator', maxDepth: 2 },
          },
          shutdownGraceMs: 100,
        },
        persistent: { store, dataDir },
      });
    try {
      const first = await start();
      const { id } = (await (
        await post(first, '/v1/runs', {
          query: 'Join the tasks',
          context: 'the context',
          config: { maxSubcalls: 2 },
        })
      ).json()) as { id: string };
      await untilEnd(first, id);
      expect(
        (await post(first, `/v1/runs/${id}/resume`, { config: { maxSubcalls: 10 } })).status,
      ).toBe(202);
      await taskThreeAsked;
      await first.close();
      expect(await store.runs.getRun(id)).toMatchObject({ status: 'queued' });

      await using second = await start();
      expect(await second.services.runs.recover()).toEqual({ requeued: [id], interrupted: [] });
      // The restarted server has keys of its own: its admin reads the run.
      while (second.services.runs.isActive(id)) await new Promise((r) => setTimeout(r, 50));
      const final = await (await second.request(`/v1/runs/${id}`, { key: second.adminKey })).json();
      expect(final).toMatchObject({ status: 'completed', answer: 'ONE+TWO+THREE' });
      expect(perTask.get('one')).toBe(1);
      expect(perTask.get('two')).toBe(1);
      const events = (await store.runs.eventsAfter(id, 0)).map(({ event }) => event);
      expect(rootEnds(withoutSuperseded(events))).toEqual([
        expect.objectContaining({ status: 'completed' }),
      ]);
    } finally {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
