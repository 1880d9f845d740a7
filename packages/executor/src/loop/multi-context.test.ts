import { createStore } from '@rlm/memory';
import { type ModelRequest, RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { memoryTrajectorySink, replay } from '../index.js';
import { eventLog, lastMessage, repl, testRLM } from '../testing/rlm-test-kit.js';

function turnOf(request: ModelRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** A root that joins the first payload with the second one's items. */
function joiningModel() {
  return scriptedModel((request) =>
    turnOf(request) === 0
      ? repl('const joined = context + " & " + context_0 + " & " + context_1.join("/")')
      : 'FINAL_VAR(joined)',
  );
}

describe('several contexts', () => {
  it('puts each payload in context_0, context_1 and tells the model about both', async () => {
    const model = joiningModel();
    const { events, onEvent } = eventLog();
    const result = await testRLM({ model, onEvent }).completion('first', {
      query: 'join',
      contexts: [['a', 'bb']],
    });
    expect(result).toMatchObject({ status: 'completed', answer: 'first & first & a/bb' });
    const turnPrompt = lastMessage(model.requests[0]!).content;
    expect(turnPrompt).toContain('`context_0` through `context_1`');
    const metadata = model.requests[0]!.messages.find(
      (message) => message.role === 'user' && message.content.includes('Your context is'),
    );
    expect(metadata?.content).toContain('`context_1` is an array of 3 characters (2 chunks).');
    const start = events.find((event) => event.type === 'run-start');
    expect(start?.type === 'run-start' && start.context.map((info) => info.type)).toEqual([
      'string',
      'array',
    ]);
  });

  it('replays a two-payload run and detects a different second payload', async () => {
    const sink = memoryTrajectorySink();
    const recorded = await testRLM({ model: joiningModel(), trajectory: sink }).completion(
      'first',
      { query: 'join', contexts: [['a', 'bb']] },
    );
    const { result } = await replay(sink.records, {
      context: 'first',
      contexts: [['a', 'bb']],
      isolation: 'inline',
    });
    expect(result.answer).toBe(recorded.answer);
    await expect(
      replay(sink.records, { context: 'first', contexts: [['a', 'cc']], isolation: 'inline' }),
    ).rejects.toMatchObject({ code: 'executor.replay_divergence', details: { step: 0 } });
    await expect(
      replay(sink.records, { context: 'first', isolation: 'inline' }),
    ).rejects.toMatchObject({ code: 'executor.replay_divergence', details: { step: 0 } });
  });

  it('refuses to resume over a different second payload, and resumes over the same ones', async () => {
    const store = await createStore({ kind: 'memory' });
    const stop = new AbortController();
    const first = await testRLM({
      model: scriptedModel((request) => {
        if (turnOf(request) === 0) return repl('const joined = context_0 + "+" + context_1');
        stop.abort();
        return new Promise<string>(() => undefined);
      }),
      runStore: store.runs,
      generateId: () => 'multi-run',
    }).completion('one', { query: 'join', contexts: ['two'], signal: stop.signal });
    expect(first.status).toBe('cancelled');
    const rlm = testRLM({ model: scriptedModel(() => 'FINAL_VAR(joined)'), runStore: store.runs });
    const refused = await rlm
      .resume('multi-run', { context: 'one', contexts: ['other'] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RlmError);
    expect(refused).toMatchObject({ code: 'executor.replay_divergence' });
    const resumed = await rlm.resume('multi-run', { context: 'one', contexts: ['two'] });
    expect(resumed).toMatchObject({ status: 'completed', answer: 'one+two' });
    await store.close();
  });

  it('rejects contexts in a session run, which takes one payload', async () => {
    const session = testRLM({ model: joiningModel() }).session();
    await expect(session.completion('first', { contexts: ['second'] })).rejects.toMatchObject({
      code: 'config.invalid',
    });
    await session.close();
  });
});
