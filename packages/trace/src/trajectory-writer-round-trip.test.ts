import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@rlm/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonlFileSink } from './jsonl-file-sink.js';
import { readTrajectory, trajectoryEvents } from './read-trajectory.js';
import { recordedExchanges } from './recorded-exchanges.js';
import { TrajectoryRecorder } from './trajectory-recorder.js';
import { memoryTrajectorySink } from './trajectory-sink.js';

const base = { v: 1 as const, runId: 'r', parentRunId: null, rootRunId: 'r', depth: 0 };
const CONTEXT = Array.from({ length: 50 }, (_, i) => `line ${i}: ${'x'.repeat(60)}`).join('\n');
const chunk = (i: number) =>
  CONTEXT.split('\n')
    .slice(i, i + 5)
    .join('\n');

/** A run of one turn whose block makes 30 sub-calls over slices of its context, recorded. */
function recordRun(recorder: TrajectoryRecorder): RunEvent[] {
  const events: RunEvent[] = [];
  let at = 1_700_000_000_000;
  const emit = (body: Record<string, unknown>) => {
    at += 5;
    const event = { ...base, at, ...body } as RunEvent;
    events.push(event);
    recorder.event(event);
  };
  recorder.header({ runId: 'r', createdAt: at, config: { model: 'm', apiKey: 'sk-secret-1234' } });
  emit({
    type: 'run-start',
    query: 'Which lines?',
    model: 'm',
    context: [{ type: 'string', totalLength: CONTEXT.length, lengths: [CONTEXT.length] }],
    maxIterations: 5,
    maxDepth: 1,
    promptVersion: 'test',
  });
  emit({ type: 'iteration-start', iteration: 0 });
  emit({ type: 'block-start', iteration: 0, index: 0, code: 'await llm_query_batched(prompts)' });
  for (let call = 0; call < 30; call += 1) {
    const callId = `r:${call}`;
    emit({ type: 'subcall-start', callId, kind: 'llm', model: 'm', promptPreview: 'Label' });
    recorder.exchange({
      runId: 'r',
      callId,
      system: undefined,
      messages: [{ role: 'user', content: `Label these:\n${chunk(call)}` }],
      response: {
        text: `label ${call}`,
        usage: { inputTokens: 40, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
        stopReason: 'end_turn',
        model: 'm',
      },
    });
    emit({
      type: 'subcall-end',
      callId,
      kind: 'llm',
      ok: true,
      durationMs: 3,
      responsePreview: 'label',
    });
  }
  emit({
    type: 'run-end',
    status: 'completed',
    answer: 'done',
    partialAnswer: null,
    usage: {
      models: {
        m: {
          calls: 31,
          inputTokens: 1200,
          outputTokens: 60,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          costUsd: 0,
        },
      },
    },
    iterations: 1,
    durationMs: 500,
  });
  return events;
}

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the trajectory writer beside its reader', () => {
  it('writes a packed, grouped file that reads back as the events and exchanges recorded', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlm-trace-writer-'));
    const sink = jsonlFileSink(dir, 'r');
    const recorder = new TrajectoryRecorder(sink, { payloads: [CONTEXT] });
    const events = recordRun(recorder);
    await recorder.close();

    const records = await readTrajectory(join(dir, 'r.jsonl'), { payloads: [CONTEXT] });
    expect(trajectoryEvents(records)).toEqual(events);
    const exchanges = recordedExchanges(records);
    expect(exchanges).toHaveLength(30);
    expect(exchanges[7]?.messages.at(-1)?.content).toBe(`Label these:\n${chunk(7)}`);
    expect(exchanges[7]?.response?.text).toBe('label 7');
    const header = records.find((record) => record.kind === 'header');
    expect(JSON.stringify(header)).not.toContain('sk-secret-1234');
  });

  it('keeps the same records in memory as it writes to a file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rlm-trace-writer-'));
    const fileRecorder = new TrajectoryRecorder(jsonlFileSink(dir, 'r'), { payloads: [CONTEXT] });
    recordRun(fileRecorder);
    await fileRecorder.close();
    const memory = memoryTrajectorySink();
    const memoryRecorder = new TrajectoryRecorder(memory);
    recordRun(memoryRecorder);
    await memoryRecorder.close();
    expect(await readTrajectory(join(dir, 'r.jsonl'), { payloads: [CONTEXT] })).toEqual(
      memory.records,
    );
  });
});
