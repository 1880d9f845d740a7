import { RlmError, type TrajectoryRecord } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { replayModel } from './replay-model.js';

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const response = (text: string) => ({
  text,
  usage,
  stopReason: 'end_turn' as const,
  model: 'anthropic/x',
});
const user = (content: string) => ({ role: 'user' as const, content });
const assistant = (content: string) => ({ role: 'assistant' as const, content });

function exchange(
  fields: {
    callId: string;
    messages: { role: 'user' | 'assistant'; content: string }[];
    messagesFrom?: number;
  },
  reply: string | null,
): TrajectoryRecord {
  return {
    kind: 'model-exchange',
    runId: 'run-1',
    callId: fields.callId,
    request: { system: 'sys', messages: fields.messages, messagesFrom: fields.messagesFrom ?? 0 },
    response: reply === null ? null : response(reply),
    ...(reply === null
      ? { error: { code: 'model.overloaded', message: 'recorded overload' } }
      : {}),
  };
}

async function caught(promise: Promise<unknown>): Promise<RlmError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!RlmError.is(error)) throw new Error('expected an RlmError');
  return error;
}

describe('replayModel', () => {
  const recording: TrajectoryRecord[] = [
    { kind: 'header', version: 1, runId: 'run-1', createdAt: '2026-11-22T00:00:00Z', config: {} },
    exchange({ callId: 'c1', messages: [user('q')] }, 'first'),
    exchange(
      { callId: 'c2', messages: [assistant('first'), user('more')], messagesFrom: 1 },
      'second',
    ),
  ];

  it('serves trajectory exchanges in order, rebuilding message deltas', async () => {
    const model = replayModel(recording);
    await expect(model.complete({ system: 'sys', messages: [user('q')] })).resolves.toMatchObject({
      text: 'first',
    });
    const second = await model.complete({
      system: 'sys',
      messages: [user('q'), assistant('first'), user('more')],
    });
    expect(second.text).toBe('second');
    expect([model.served, model.remaining]).toEqual([2, 0]);
  });

  it('fails loudly when a request differs from the recording', async () => {
    const model = replayModel(recording);
    const error = await caught(model.complete({ system: 'sys', messages: [user('changed')] }));
    expect(error).toMatchObject({ code: 'executor.replay_divergence', details: { step: 0 } });
    expect(error.message).toContain('"changed"');
  });

  it('fails loudly on a call beyond the recording', async () => {
    const model = replayModel(['only']);
    await model.complete({ messages: [user('a')] });
    const error = await caught(model.complete({ messages: [user('b')] }));
    expect(error).toMatchObject({ code: 'executor.replay_divergence', details: { step: 1 } });
  });

  it('re-throws a recorded failure with its code', async () => {
    const model = replayModel([exchange({ callId: 'c1', messages: [user('q')] }, null)]);
    expect((await caught(model.complete({ system: 'sys', messages: [user('q')] }))).code).toBe(
      'model.overloaded',
    );
  });

  it('matches shortened recorded messages by head and length', async () => {
    const long = 'x'.repeat(30);
    const model = replayModel([
      {
        request: { messages: [user(`${'x'.repeat(10)}… + [20 chars... sha256:0123456789abcdef]`)] },
        response: response('ok'),
      },
    ]);
    await expect(model.complete({ messages: [user(long)] })).resolves.toMatchObject({ text: 'ok' });
  });

  it('serves out of order with order: any', async () => {
    const model = replayModel(
      [
        { request: { messages: [user('a')] }, response: response('for a') },
        { request: { messages: [user('b')] }, response: response('for b') },
      ],
      { order: 'any' },
    );
    await expect(model.complete({ messages: [user('b')] })).resolves.toMatchObject({
      text: 'for b',
    });
    await expect(model.complete({ messages: [user('a')] })).resolves.toMatchObject({
      text: 'for a',
    });
    expect((await caught(model.complete({ messages: [user('a')] }))).code).toBe(
      'executor.replay_divergence',
    );
  });
});
