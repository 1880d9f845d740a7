import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TrajectoryRecord } from '@rlm/protocol';
import { scriptedModel, sleep } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { memoryTrajectorySink, replay } from '../index.js';
import { lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

const ROOT_CODE = [
  'const words = context.split(" ")',
  'const upper = await llm_query_batched(words)',
  'const child = await rlm_query("count", { context: words.join(", ") })',
  'const summary = upper.join("-") + " / " + child',
].join('\n');

/** A recorded run with concurrent sub-calls finishing out of order and a child running code. */
async function record(): Promise<{ records: TrajectoryRecord[]; answer: string | null }> {
  const model = scriptedModel((request) => {
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    if (request.messages[0]!.content.includes('string of 25 characters')) {
      return turn === 0 ? repl('const n = context.split(", ").length') : 'FINAL_VAR(n)';
    }
    return turn === 0 ? repl(ROOT_CODE) : 'FINAL_VAR(summary)';
  });
  const subModel = scriptedModel(
    async (request) => {
      const word = lastMessage(request).content;
      await sleep(word === 'alpha' ? 40 : 1);
      return word.toUpperCase();
    },
    { id: 'scripted/sub' },
  );
  const sink = memoryTrajectorySink();
  const rlm = testRLM({ model, subModel, maxDepth: 2, trajectory: sink });
  const result = await rlm.completion('alpha beta gamma delta', { query: 'shout' });
  return { records: sink.records, answer: result.answer };
}

describe('replay', () => {
  it('re-runs a recording offline with the same answer and events', async () => {
    const { records, answer } = await record();
    const { result, events } = await replay(records, {
      context: 'alpha beta gamma delta',
      isolation: 'inline',
    });
    expect(answer).toBe('ALPHA-BETA-GAMMA-DELTA / 4');
    expect(result.answer).toBe(answer);
    expect(result.status).toBe('completed');
    const recordedTypes = records.flatMap((r) => (r.kind === 'event' ? [r.event.type] : []));
    expect(events.map((event) => event.type).sort()).toEqual(recordedTypes.sort());
  });

  it('replays a run recorded without the context helpers in a sandbox without them', async () => {
    const model = scriptedModel([repl('const kind = typeof grep\nprint(kind)'), 'FINAL_VAR(kind)']);
    const sink = memoryTrajectorySink();
    await testRLM({ model, contextHelpers: false, trajectory: sink }).completion('text');
    const header = sink.records.find((record) => record.kind === 'header');
    expect(header?.kind === 'header' && header.config['contextHelpers']).toBe(false);
    const { result } = await replay(sink.records, { context: 'text', isolation: 'inline' });
    expect(result.answer).toBe('undefined');
  });

  it('names the first differing step when the code no longer does the same thing', async () => {
    const { records } = await record();
    const index = records.findIndex((r) => r.kind === 'event' && r.event.type === 'block-end');
    const tampered = records.map((r, i) =>
      i === index && r.kind === 'event' && r.event.type === 'block-end'
        ? { ...r, event: { ...r.event, stdout: 'something else' } }
        : r,
    );
    const eventPosition = tampered.slice(0, index).filter((r) => r.kind === 'event').length;
    await expect(
      replay(tampered, { context: 'alpha beta gamma delta', isolation: 'inline' }),
    ).rejects.toMatchObject({
      code: 'executor.replay_divergence',
      details: { step: eventPosition },
    });
  });

  it('fails when a recorded response would lead to different prompts', async () => {
    const { records } = await record();
    const tampered = records.map((r) =>
      r.kind === 'model-exchange' && r.response?.text.includes('const words')
        ? { ...r, response: { ...r.response, text: repl('print("different")') } }
        : r,
    );
    await expect(
      replay(tampered, { context: 'alpha beta gamma delta', isolation: 'inline' }),
    ).rejects.toMatchObject({
      code: 'executor.replay_divergence',
    });
  });

  it('refuses a different context', async () => {
    const { records } = await record();
    await expect(
      replay(records, { context: 'other text', isolation: 'inline' }),
    ).rejects.toMatchObject({
      code: 'executor.replay_divergence',
      details: { step: 0 },
    });
  });

  it('replays a trajectory file written by a run', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rlm-replay-'));
    const model = scriptedModel([
      repl('const words = context.split(" ").length'),
      'FINAL_VAR(words)',
    ]);
    const recorded = await testRLM({ model, trajectory: { dir } }).completion('one two three');
    const { result } = await replay(recorded.trajectoryPath!, {
      context: 'one two three',
      isolation: 'inline',
    });
    expect(result).toMatchObject({ status: 'completed', answer: '3', runId: recorded.runId });
  });
});

describe('replay of coordination features', () => {
  it('replays a run that compacted and one that ended on a confident set_answer', async () => {
    const big = (turn: number) => repl(`print("${turn}".repeat(1500))`);
    let turn = 0;
    const compacting = scriptedModel(
      (request) => {
        if (lastMessage(request).content.startsWith('Your conversation is close to the size')) {
          return 'SUMMARY';
        }
        turn += 1;
        return turn <= 3 ? big(turn) : 'FINAL(done)';
      },
      { contextWindow: 1_000 },
    );
    const first = memoryTrajectorySink();
    await testRLM({
      model: compacting,
      compaction: { fraction: 0.6 },
      trajectory: first,
    }).completion('ctx');
    expect(first.records.some((r) => r.kind === 'event' && r.event.type === 'compaction-end')).toBe(
      true,
    );
    await expect(
      replay(first.records, { context: 'ctx', isolation: 'inline' }),
    ).resolves.toMatchObject({ result: { status: 'completed', answer: 'done' } });

    const proposing = scriptedModel((request) =>
      request.messages.some((message) => message.role === 'assistant')
        ? repl("set_answer('sure', { confidence: 0.9 })")
        : repl("set_answer('maybe', { confidence: 0.2 })"),
    );
    const second = memoryTrajectorySink();
    await testRLM({
      model: proposing,
      dispatcher: true,
      confidenceThreshold: 0.8,
      trajectory: second,
    }).completion('ctx');
    await expect(
      replay(second.records, { context: 'ctx', isolation: 'inline' }),
    ).resolves.toMatchObject({ result: { status: 'completed', answer: 'sure' } });
  });
});
