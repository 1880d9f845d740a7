import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { parseTrajectory, readTrajectory, recordedExchanges } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { exportRlmpaperLog, memoryTrajectorySink } from '../index.js';
import { repl, testRLM } from '../testing/rlm-test-kit.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'rlm-trajectory-'));
}

describe('trajectories', () => {
  it('writes header, events and exchanges to <dir>/<runId>.jsonl', async () => {
    const dir = await tempDir();
    const model = scriptedModel([repl('print(context.length)'), 'FINAL(5)']);
    const rlm = testRLM({ model, trajectory: { dir }, generateId: () => 'run-a' });
    const result = await rlm.completion('hello', { query: 'length?' });
    expect(result.trajectoryPath).toBe(join(dir, 'run-a.jsonl'));
    const records = await readTrajectory(result.trajectoryPath!);
    expect(records[0]).toMatchObject({
      kind: 'header',
      runId: 'run-a',
      config: { model: 'scripted/model' },
    });
    expect(records.filter((record) => record.kind === 'model-exchange')).toHaveLength(2);
    expect(records.at(-1)).toMatchObject({
      kind: 'event',
      event: { type: 'run-end', status: 'completed' },
    });
  });

  it('references the context by size and hash instead of copying it', async () => {
    const sink = memoryTrajectorySink();
    const context = `${'lorem ipsum '.repeat(80_000)}NEEDLE-7f3a`;
    const model = scriptedModel([repl('print(context.slice(-4))'), 'FINAL(7f3a)']);
    await testRLM({ model, trajectory: sink }).completion(context);
    const text = sink.records.map((record) => JSON.stringify(record)).join('\n');
    expect(text).not.toContain('NEEDLE-7f3a');
    expect(text.length).toBeLessThan(50_000);
    expect(text).toMatch(/"hash":"sha256:[0-9a-f]{16}"/);
  });

  it('stores only the new messages of each exchange', async () => {
    const sink = memoryTrajectorySink();
    const model = scriptedModel([repl('print(1)'), repl('print(2)'), 'FINAL(3)']);
    await testRLM({ model, trajectory: sink }).completion('ctx');
    const exchanges = sink.records.flatMap((record) =>
      record.kind === 'model-exchange' ? [record] : [],
    );
    expect(exchanges.map((exchange) => exchange.request.messagesFrom)).toEqual([0, 2, 5]);
    expect(exchanges[2]!.request.messages).toHaveLength(3);
  });

  it('records the exact system prompt the root model received, a systemPromptPrefix included', async () => {
    const sink = memoryTrajectorySink();
    const prefix = `# Layer 0\nYou are Scribe.\n${'More instructions. '.repeat(600)}`;
    const model = scriptedModel([repl('const n = await llm_query("sub")'), 'FINAL_VAR(n)']);
    const subModel = scriptedModel(['sub answer'], { id: 'scripted/sub' });
    await testRLM({ model, subModel, trajectory: sink, systemPromptPrefix: prefix }).completion(
      'ctx',
    );
    const sent = model.requests.map((request) => request.system);
    expect(sent[0]?.startsWith(`${prefix}\n\n`)).toBe(true);
    // Root turn 1, its llm_query (which keeps its own plain prompt), root turn 2.
    const [first, sub, second] = recordedExchanges(sink.records);
    expect([first?.system, second?.system]).toEqual(sent);
    expect([subModel.requests[0]?.system, sub?.system]).toEqual([undefined, undefined]);
    // The header keeps the prefix, so a replay sends the same prompt.

    expect(sink.records[0]).toMatchObject({
      kind: 'header',
      config: { systemPromptPrefix: prefix },
    });
  });

  it('redacts API keys that reach prompts or responses', async () => {
    const sink = memoryTrajectorySink();
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345';
    const model = scriptedModel([repl(`print("${key}")`), 'FINAL(ok)']);
    await testRLM({ model, trajectory: sink }).completion('ctx');
    const text = JSON.stringify(sink.records);
    expect(text).not.toContain(key);
    expect(text).toContain('[REDACTED]');
  });

  it('still writes the trajectory when the root model fails', async () => {
    const dir = await tempDir();
    const failure = new RlmError({
      code: 'model.auth',
      message: 'bad key',
      details: { status: 401 },
    });
    const result = await testRLM({
      model: scriptedModel([failure]),
      trajectory: { dir },
    }).completion('ctx');
    const records = await readTrajectory(result.trajectoryPath!);
    expect(records.at(-1)).toMatchObject({ event: { type: 'run-end', status: 'error' } });
  });

  it('reads the prefix of a file cut short by a crash', async () => {
    const dir = await tempDir();
    const model = scriptedModel([repl('print(1)'), 'FINAL(1)']);
    const result = await testRLM({ model, trajectory: { dir } }).completion('ctx');
    const text = await readFile(result.trajectoryPath!, 'utf8');
    const cut = text.slice(0, text.length - 40);
    await writeFile(join(dir, 'cut.jsonl'), cut);
    const records = await readTrajectory(join(dir, 'cut.jsonl'));
    expect(records.length).toBe(text.trim().split('\n').length - 1);
    expect(() => parseTrajectory('{"kind":"nope"}\n{}\n')).toThrow(
      expect.objectContaining({ code: 'protocol.invalid_message' }),
    );
  });

  it('exports the reference engine log format', async () => {
    const sink = memoryTrajectorySink();
    const model = scriptedModel([
      repl('const r = await llm_query("sub?")\nprint(r)'),
      'FINAL_VAR(r)',
    ]);
    const subModel = scriptedModel(['sub answer'], { id: 'scripted/sub' });
    await testRLM({ model, subModel, trajectory: sink, maxDepth: 1 }).completion('ctx');
    const lines = exportRlmpaperLog(sink.records)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      type: 'metadata',
      root_model: 'scripted/model',
      max_depth: 1,
    });
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatchObject({
      type: 'iteration',
      iteration: 1,
      prompt: [{ role: 'system' }, { role: 'user' }, { role: 'user' }],
      code_blocks: [
        { code: expect.stringContaining('llm_query'), result: { rlm_calls: [{ prompt: 'sub?' }] } },
      ],
      final_answer: null,
    });
    expect(lines[2]).toMatchObject({ iteration: 2, final_answer: expect.any(String) });
  });
});

describe('rlmpaper export of a run with a child', () => {
  it('nests the child iterations under rlm_calls metadata', async () => {
    const sink = memoryTrajectorySink();
    const model = scriptedModel((request) => {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      if (request.messages[0]!.content.includes('string of 3 characters')) {
        return turn === 0 ? repl('const n = context.length') : 'FINAL_VAR(n)';
      }
      return turn === 0
        ? repl('const r = await rlm_query("len", { context: "abc" })')
        : 'FINAL_VAR(r)';
    });
    await testRLM({ model, maxDepth: 2, trajectory: sink }).completion('root context');
    const lines = exportRlmpaperLog(sink.records)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const call = lines[1].code_blocks[0].result.rlm_calls[0];
    expect(call).toMatchObject({ prompt: 'len', response: '3' });
    expect(call.metadata.iterations).toHaveLength(2);
    expect(call.metadata.iterations[0].code_blocks[0].code).toBe('const n = context.length');
  });
});
