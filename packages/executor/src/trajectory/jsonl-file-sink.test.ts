import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelRequest, TrajectoryRecord } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import {
  groupedLines,
  jsonlFileSink,
  parseTrajectory,
  readTrajectory,
  type TrajectorySink,
} from '@rlm/trace';
import { afterEach, describe, expect, it } from 'vitest';
import { isSubCall, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

/** Distinct short records, one a line: prompts of ten of them are ~600 characters. */
const context = Array.from(
  { length: 3_000 },
  (_, line) =>
    `record ${line} ${(line * 7919).toString(36)} about ${line % 3 === 0 ? 'billing' : 'shipping'}`,
).join('\n');

const BATCHED =
  "const lines = context.split('\\n')\n" +
  'const prompts = []\n' +
  "for (let i = 0; i < lines.length; i += 10) prompts.push('Label each record:\\n' + lines.slice(i, i + 10).join('\\n'))\n" +
  'const rs = await llm_query_batched(prompts)\n' +
  'print(rs.length)';

function models() {
  const turnOf = (request: ModelRequest) =>
    request.messages.filter((message) => message.role === 'assistant').length;
  return scriptedModel((request) => {
    if (isSubCall(request))
      return lastMessage(request).content.includes('billing') ? 'billing' : 'other';
    return turnOf(request) === 0 ? repl(BATCHED) : 'FINAL(done)';
  });
}

/** The file sink, keeping the records it was given too. */
function teeFileSink(dir: string): TrajectorySink & { records: TrajectoryRecord[] } {
  const file = jsonlFileSink(dir, 'run-g');
  const records: TrajectoryRecord[] = [];
  return {
    path: file.path,
    records,
    write(record) {
      records.push(record);
      file.write(record);
    },
    writeLine(line, record) {
      records.push(JSON.parse(JSON.stringify(record)));
      file.writeLine?.(line, record);
    },
    close: () => file.close(),
  };
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('jsonlFileSink groups', () => {
  it('writes a batched call of short prompts compressed together, and it reads back the same records', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-groups-'));
    dirs.push(dir);
    const sink = teeFileSink(dir);
    const model = models();
    const result = await testRLM({ model, subModel: model, trajectory: sink }).completion(context);
    expect(result.answer).toBe('done');
    const text = await readFile(sink.path!, 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.kind === 'group').length).toBeGreaterThan(0);
    // 300 sub-calls of ~600 characters each: whole, the records are several times the context.
    expect(sink.records.map((record) => JSON.stringify(record)).join('\n').length).toBeGreaterThan(
      2 * context.length,
    );
    // What stays is mostly the prompt previews (200 characters of each prompt, written as
    // they are) and the run's fixed part (system prompt, header).
    expect(text.length).toBeLessThan(context.length / 2);
    const group = lines.find((line) => line.kind === 'group');
    expect(JSON.stringify(group).length).toBeLessThan(
      groupedLines(group, 'group').join('\n').length / 5,
    );
    expect(await readTrajectory(sink.path!, { payloads: [context] })).toEqual(sink.records);

    // Sub-call records wait in a group; the block's end is written after all of them.
    const blockEnd = lines.findIndex(
      (line) => line.kind === 'event' && line.event?.type === 'block-end',
    );
    const packedBlockEnd = lines.findIndex((line) => line.of === 'event:block-end');
    const end = blockEnd === -1 ? packedBlockEnd : blockEnd;
    expect(lines.slice(end).some((line) => line.kind === 'group')).toBe(false);
  });

  it('leaves a file whose every line-cut prefix reads as a prefix of the records', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-groups-'));
    dirs.push(dir);
    const sink = teeFileSink(dir);
    const model = models();
    await testRLM({ model, subModel: model, trajectory: sink }).completion(context);
    const lines = (await readFile(sink.path!, 'utf8')).trim().split('\n');
    for (let count = 1; count <= lines.length; count++) {
      const records = parseTrajectory(`${lines.slice(0, count).join('\n')}\n`, {
        payloads: [context],
      });
      expect(records).toEqual(sink.records.slice(0, records.length));
    }
  });

  it('writes what waits in a group at close', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-groups-'));
    dirs.push(dir);
    const sink = jsonlFileSink(dir, 'run-c');
    const base = { v: 1 as const, runId: 'r', parentRunId: null, rootRunId: 'r', depth: 0, at: 1 };
    const start: TrajectoryRecord = {
      kind: 'event',
      event: {
        ...base,
        type: 'subcall-start',
        callId: 'r:1',
        kind: 'llm',
        model: 'm',
        promptPreview: 'p',
      },
    };
    const end: TrajectoryRecord = {
      kind: 'event',
      event: {
        ...base,
        type: 'subcall-end',
        callId: 'r:1',
        kind: 'llm',
        ok: true,
        durationMs: 1,
        responsePreview: 'x',
      },
    };
    sink.writeLine?.(start, start);
    sink.writeLine?.(end, end);
    expect(await readFile(sink.path!, 'utf8')).toBe('');
    await sink.close();
    expect(await readTrajectory(sink.path!)).toEqual([start, end]);
  });
});
