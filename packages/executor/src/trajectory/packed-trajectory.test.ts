import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '@rlm/memory';
import type { ModelRequest, TrajectoryRecord } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import {
  expandTrajectory,
  readTrajectory,
  type StoredTrajectoryLine,
  trajectoryEvents,
} from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { exportRlmpaperLog, replay, type TrajectorySink } from '../index.js';
import { isSubCall, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

/** A context with no period, so a chunk is found only where it was cut. */
function prose(length: number): string {
  let state = 7;
  let text = '';
  while (text.length < length) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    text += `${(state >>> 8).toString(36)} `;
  }
  return text.slice(0, length);
}

const context = prose(400_000);
const CHUNKED =
  'const size = Math.ceil(context.length / 40)\n' +
  'const rs = await llm_query_batched(Array.from({ length: 40 }, (_, i) => "Summarize: " + context.slice(i * size, (i + 1) * size)))\n' +
  'print(rs.length)';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

function chunkedModels() {
  const model = scriptedModel((request) => {
    if (isSubCall(request)) return `seen ${lastMessage(request).content.length}`;
    return turnOf(request) === 0 ? repl(CHUNKED) : 'FINAL(done)';
  });
  return { model, subModel: model };
}

/** A sink keeping both what a file gets (packed lines) and the records they stand for. */
function teeSink(): TrajectorySink & {
  lines: StoredTrajectoryLine[];
  records: TrajectoryRecord[];
} {
  const lines: StoredTrajectoryLine[] = [];
  const records: TrajectoryRecord[] = [];
  return {
    lines,
    records,
    write() {
      throw new Error('a sink with writeLine gets lines');
    },
    writeLine(line, record) {
      lines.push(JSON.parse(JSON.stringify(line)));
      records.push(JSON.parse(JSON.stringify(record)));
    },
    async close() {},
  };
}

describe('packed trajectories', () => {
  it('records chunks of the context as references and reads back the same records', async () => {
    const sink = teeSink();
    const result = await testRLM({ ...chunkedModels(), trajectory: sink }).completion(context);
    expect(result.answer).toBe('done');
    const written = sink.lines.map((line) => JSON.stringify(line)).join('\n').length;
    const whole = sink.records.map((record) => JSON.stringify(record)).join('\n').length;
    expect(whole).toBeGreaterThan(context.length);
    expect(written).toBeLessThan(context.length / 5);
    expect(expandTrajectory(sink.lines, { payloads: [context] })).toEqual(sink.records);
  });

  it('writes a file that reads with the context, names it when missing, and replays', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-packed-'));
    try {
      const { model, subModel } = chunkedModels();
      const result = await testRLM({ model, subModel, trajectory: { dir } }).completion(context);
      const path = result.trajectoryPath!;
      expect((await readFile(path, 'utf8')).length).toBeLessThan(context.length / 5);
      const records = await readTrajectory(path, { payloads: [context] });
      const prompts = trajectoryEvents(records).filter((event) => event.type === 'subcall-start');
      expect(prompts).toHaveLength(40);
      // The exchanges hold each chunk as it was sent (up to the recorded message cap).
      const sent = subModel.requests
        .filter(isSubCall)
        .map((request) => lastMessage(request).content);
      const recorded = records.flatMap((record) =>
        record.kind === 'model-exchange' &&
        record.request.messages[0]?.content.startsWith('Summarize: ')
          ? [record.request.messages[0].content]
          : [],
      );
      expect(recorded.map((text) => text.slice(0, 9_000))).toEqual(
        sent.map((text) => text.slice(0, 9_000)),
      );

      // Without the context, a reader gets notes naming it, or an error when it asks for one.
      const bare = JSON.stringify(await readTrajectory(path));
      expect(bare).toMatch(
        /\[\d+ chars of context \(400000 chars, sha256:[0-9a-f]{16}\) from offset/,
      );
      expect(bare).not.toContain(sent[3]!.slice(100, 400));
      await expect(readTrajectory(path, { missingContext: 'error' })).rejects.toMatchObject({
        code: 'trace.context_missing',
        message: expect.stringMatching(
          /refers to context \(400000 chars, sha256:[0-9a-f]{16}\), not given/,
        ),
        details: { context: 0, length: 400_000, given: null },
      });
      await expect(readTrajectory(path, { payloads: [`${context}!`] })).rejects.toMatchObject({
        code: 'trace.context_missing',
        details: { given: expect.stringContaining('400001 chars') },
      });

      const replayed = await replay(path, { context });
      expect(replayed.result.answer).toBe('done');

      const log = exportRlmpaperLog(records)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      const calls = log[1].code_blocks[0].result.rlm_calls;
      expect(calls).toHaveLength(40);
      expect(sent).toContain(calls[3].prompt);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('continues a packed file when a stopped run resumes, and the whole file reads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-packed-resume-'));
    const store = await createStore({ kind: 'memory' });
    try {
      const stop = new AbortController();
      const first = scriptedModel(async (request) => {
        if (isSubCall(request)) return 'ok';
        if (turnOf(request) === 0) return repl(CHUNKED);
        stop.abort();
        return new Promise<string>(() => undefined);
      });
      const options = { runStore: store.runs, trajectory: { dir }, generateId: () => 'run-p' };
      const stopped = await testRLM({ model: first, ...options }).completion(context, {
        signal: stop.signal,
      });
      expect(stopped.status).toBe('cancelled');
      const model = scriptedModel(() => 'FINAL_VAR(rs)');
      const resumed = await testRLM({ model, ...options }).resume('run-p', { context });
      expect(resumed.status).toBe('completed');
      const records = await readTrajectory(join(dir, 'run-p.jsonl'), { payloads: [context] });
      const types = trajectoryEvents(records).map((event) => event.type);
      expect(types.filter((type) => type === 'run-resume')).toHaveLength(1);
      expect(types.filter((type) => type === 'subcall-start').length).toBeGreaterThanOrEqual(40);
      expect(types.at(-1)).toBe('run-end');
      const replayed = await replay(join(dir, 'run-p.jsonl'), { context }).catch((error) => error);
      expect(replayed).not.toMatchObject({ code: 'trace.context_missing' });
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
