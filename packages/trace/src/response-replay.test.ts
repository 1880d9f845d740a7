import type { ModelResponse, TrajectoryRecord } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { replayingModel, responseReplay } from './response-replay.js';

const response = (text: string): ModelResponse => ({
  text,
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  stopReason: 'end_turn',
  model: 'scripted/model',
});

function exchange(messagesFrom: number, messages: string[], text: string): TrajectoryRecord {
  return {
    kind: 'model-exchange',
    runId: 'run_1',
    callId: `c${messagesFrom}`,
    request: {
      system: 'sys',
      messages: messages.map((content) => ({ role: 'user', content })),
      messagesFrom,
    },
    response: response(text),
  };
}

describe('responseReplay', () => {
  it('rebuilds full requests from message deltas and serves each recorded answer once', () => {
    const replay = responseReplay([exchange(0, ['a'], 'first'), exchange(1, ['b'], 'second')]);
    const request = (contents: string[]) => ({
      system: 'sys',
      messages: contents.map((content) => ({ role: 'user' as const, content })),
    });
    expect(replay.take(request(['a', 'b']))?.text).toBe('second');
    expect(replay.take(request(['a']))?.text).toBe('first');
    expect(replay.take(request(['a']))).toBeUndefined();
    expect(replay.take(request(['a', 'changed']))).toBeUndefined();
    expect(replay.served).toBe(2);
  });

  it('falls through to the live model for requests it has not seen', async () => {
    const live = scriptedModel(['live answer']);
    const model = replayingModel(live, responseReplay([exchange(0, ['a'], 'recorded')]));
    const ask = (content: string) =>
      model.complete({ system: 'sys', messages: [{ role: 'user', content }] });
    expect((await ask('a')).text).toBe('recorded');
    expect((await ask('b')).text).toBe('live answer');
    expect(live.calls).toBe(1);
  });
});
