import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '@rlm/memory';
import { type ModelRequest, RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { readTrajectory, trajectoryEvents } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { memoryTrajectorySink } from '../index.js';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

describe('resume(runId)', () => {
  it('continues from the last checkpoint: blocks re-run with recorded sub-call results, no model calls, then live', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const firstModel = scriptedModel(async (request) => {
      switch (turnOf(request)) {
        case 0:
          return repl('const a = await llm_query("first")');
        case 1:
          return repl('const b = a + "+" + (await llm_query("second"))');
        default:
          // The "crash": the run is stopped while its third turn waits for the model.
          stop.abort();
          return new Promise<string>(() => undefined);
      }
    });
    const firstSub = scriptedModel((request) => lastMessage(request).content.toUpperCase(), {
      id: 'scripted/sub',
    });
    const first = await testRLM({
      model: firstModel,
      subModel: firstSub,
      runStore: store.runs,
      generateId: () => 'run-1',
    }).completion('the context', { query: 'join them', signal: stop.signal });
    expect(first.status).toBe('cancelled');
    expect((await store.runs.getRun('run-1'))?.status).toBe('cancelled');
    expect((await store.runs.latestCheckpoint('run-1'))?.turn).toBe(1);

    const model = scriptedModel(() => 'FINAL_VAR(b)');
    const subModel = scriptedModel(() => 'live', { id: 'scripted/sub' });
    const { events, onEvent } = eventLog();
    const sink = memoryTrajectorySink();
    const result = await testRLM({
      model,
      subModel,
      runStore: store.runs,
      onEvent,
      trajectory: sink,
    }).resume('run-1', { context: 'the context' });
    expect(result).toMatchObject({ runId: 'run-1', status: 'completed', answer: 'FIRST+SECOND' });
    // The run goes on: it says so, with no second run-start and no second trajectory header.
    expect(events[0]).toMatchObject({ type: 'run-resume', runId: 'run-1', fromIteration: 2 });
    expect(events.filter((event) => event.type === 'run-start')).toEqual([]);
    expect(sink.records.filter((record) => record.kind === 'header')).toEqual([]);
    expect(subModel.calls).toBe(0);
    expect(model.calls).toBe(1);
    // The resumed turn sees exactly the conversation the interrupted one was sent.
    expect(model.requests[0]!.messages).toEqual(firstModel.requests[2]!.messages);
    // Usage covers the whole run: 3 root calls (2 before, 1 after) and the 2 recorded sub-calls.
    expect(result.usage.models['scripted/model']?.calls).toBe(3);
    expect(result.usage.models['scripted/sub']?.calls).toBe(2);
    expect((await store.runs.getRun('run-1'))?.status).toBe('completed');
    await store.close();
  });

  it('runs a run stopped before its first checkpoint again as the same run (rerun)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-rerun-'));
    const stop = new AbortController();
    const stalled = scriptedModel(async () => {
      stop.abort();
      return new Promise<string>(() => undefined);
    });
    const options = { trajectory: { dir }, generateId: () => 'run-3' };
    const first = await testRLM({ model: stalled, ...options }).completion('ctx', {
      signal: stop.signal,
    });
    expect(first.status).toBe('cancelled');
    const { events, onEvent } = eventLog();
    const model = scriptedModel([repl('const x = 1'), 'FINAL_VAR(x)']);
    const again = await testRLM({ model, onEvent, ...options }).completion('ctx', { rerun: true });
    expect(again).toMatchObject({ runId: 'run-3', status: 'completed', answer: '1' });
    expect(events[0]).toMatchObject({ type: 'run-resume', fromIteration: 0 });
    // One file: the stopped attempt, then the rerun after it; one header, one run-start.
    const records = await readTrajectory(join(dir, 'run-3.jsonl'));
    expect(records.filter((record) => record.kind === 'header')).toHaveLength(1);
    const lifecycle = trajectoryEvents(records)
      .filter((event) => ['run-start', 'run-resume', 'run-end'].includes(event.type))
      .map((event) => (event.type === 'run-end' ? `${event.type}:${event.status}` : event.type));
    expect(lifecycle).toEqual([
      'run-start',
      'run-end:cancelled',
      'run-resume',
      'run-end:completed',
    ]);
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses rerun in a session, whose runs are always new', async () => {
    const session = testRLM({ model: scriptedModel(['FINAL(1)']) }).session();
    await expect(session.completion('ctx', { rerun: true })).rejects.toMatchObject({
      code: 'config.invalid',
    });
    await session.close();
  });

  it('reuses a run record made beforehand and stores its end status and usage', async () => {
    const store = await createStore({ kind: 'memory' });
    await store.runs.createRun({ id: 'queued-run', status: 'queued' });
    const model = scriptedModel((request) =>
      turnOf(request) === 0 ? repl('const x = 1') : 'FINAL(done)',
    );
    const result = await testRLM({
      model,
      runStore: store.runs,
      generateId: () => 'queued-run',
    }).completion('ctx');
    expect(result.status).toBe('completed');
    const record = await store.runs.getRun('queued-run');
    expect(record).toMatchObject({ status: 'completed', usage: result.usage });
    expect((await store.runs.latestCheckpoint('queued-run'))?.turn).toBe(0);
    await store.close();
  });

  it('refuses a run without a checkpoint, an RLM without a store, and another context', async () => {
    const store = await createStore({ kind: 'memory' });
    const model = scriptedModel((request) =>
      turnOf(request) === 0 ? repl('const x = 1') : 'FINAL(done)',
    );
    await testRLM({ model, runStore: store.runs, generateId: () => 'run-2' }).completion('ctx');
    const codeOf = async (promise: Promise<unknown>) => {
      const error = await promise.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RlmError);
      return (error as RlmError).code;
    };
    const rlm = testRLM({ model, runStore: store.runs });
    expect(await codeOf(rlm.resume('unknown', { context: 'ctx' }))).toBe('executor.no_checkpoint');
    expect(await codeOf(testRLM({ model }).resume('run-2', { context: 'ctx' }))).toBe(
      'executor.no_checkpoint',
    );
    expect(await codeOf(rlm.resume('run-2', { context: 'other' }))).toBe(
      'executor.replay_divergence',
    );
    await store.close();
  });
});
