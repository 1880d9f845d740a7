import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from './scripted-model.js';

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('scriptedModel', () => {
  it('answers string steps in order with filled-in usage and metadata', async () => {
    const model = scriptedModel(['first', 'second']);
    const one = await model.complete(ask('hello world!'));
    const two = await model.complete(ask('again'));
    expect(one).toMatchObject({ text: 'first', stopReason: 'end_turn', model: 'scripted/model' });
    expect(one.usage).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(one.requestId).toBe('req_scripted_1');
    expect(two.text).toBe('second');
    expect(model.id).toBe('scripted/model');
  });

  it('records every request with a copy of its messages', async () => {
    const model = scriptedModel(['a']);
    const request = { system: 'sys', messages: [{ role: 'user' as const, content: 'q' }] };
    await model.complete(request);
    request.messages[0]!.content = 'mutated later';
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).toMatchObject({ system: 'sys', messages: [{ content: 'q' }] });
    expect(model.calls).toBe(1);
  });

  it('merges partial responses and throws Error steps', async () => {
    const failure = new Error('boom');
    const model = scriptedModel([
      { text: 'partial', stopReason: 'max_tokens', costUsd: 0.5, usage: { cacheReadTokens: 7 } },
      failure,
    ]);
    await expect(model.complete(ask('x'))).resolves.toMatchObject({
      text: 'partial',
      stopReason: 'max_tokens',
      costUsd: 0.5,
      usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 7, cacheWriteTokens: 0 },
    });
    await expect(model.complete(ask('x'))).rejects.toBe(failure);
  });

  it('calls function steps and script functions with the request and index', async () => {
    const stepwise = scriptedModel([(request) => `echo ${request.messages[0]?.content}`]);
    await expect(stepwise.complete(ask('ping'))).resolves.toMatchObject({ text: 'echo ping' });
    const whole = scriptedModel(async (_request, index) => `call ${index}`);
    await whole.complete(ask('a'));
    await expect(whole.complete(ask('b'))).resolves.toMatchObject({ text: 'call 1' });
  });

  it('throws testkit.script_exhausted when the script runs out', async () => {
    const model = scriptedModel(['only']);
    await model.complete(ask('a'));
    const error = await model.complete(ask('b')).catch((caught: unknown) => caught);
    expect(RlmError.is(error, 'testkit.script_exhausted')).toBe(true);
    expect((error as RlmError<'testkit.script_exhausted'>).details).toEqual({ calls: 2, steps: 1 });
  });

  it('rejects with model.aborted for an already-aborted signal', async () => {
    const model = scriptedModel(['never']);
    const signal = AbortSignal.abort(new Error('stop'));
    await expect(model.complete({ ...ask('a'), signal })).rejects.toMatchObject({
      code: 'model.aborted',
    });
  });

  it('rejects with model.aborted when the signal aborts during a slow step', async () => {
    const controller = new AbortController();
    const model = scriptedModel([() => new Promise<string>(() => {})]);
    const pending = model.complete({ ...ask('a'), signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'model.aborted' });
  });

  it('aborts during its configured latency', async () => {
    const controller = new AbortController();
    const model = scriptedModel(['late'], { latencyMs: 60_000 });
    const pending = model.complete({ ...ask('a'), signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'model.aborted' });
  });
});
