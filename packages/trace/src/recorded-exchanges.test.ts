import type { ChatMessage, ModelResponse, TrajectoryRecord } from '@rlm/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExchangeEncoder, type ExchangeInput, recordedExchanges } from './recorded-exchanges.js';
import { recording } from './testing/recorded-runs.js';

const response: ModelResponse = {
  text: 'ok',
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  stopReason: 'end_turn',
  model: 'scripted/model',
};

const message = fc.record({
  role: fc.constantFrom('user' as const, 'assistant' as const),
  content: fc.constantFrom('a', 'b', 'c', ''),
});
const exchange = fc.record({
  runId: fc.constantFrom('root', 'root:1'),
  system: fc.option(fc.constantFrom('sys', 'other'), { nil: undefined }),
  messages: fc.array(message, { maxLength: 5 }),
});
type Call = { runId: string; system: string | undefined; messages: ChatMessage[] };

function encodeAll(
  calls: readonly Call[],
  { restartAt }: { restartAt: number },
): TrajectoryRecord[] {
  let encoder = new ExchangeEncoder();
  return calls.map((call, index) => {
    // A resumed run records with a new encoder, after what the stopped one wrote.
    if (index === restartAt) encoder = new ExchangeEncoder();
    const input: ExchangeInput = { ...call, callId: `c${index}`, response };
    return encoder.encode(input);
  });
}

describe('ExchangeEncoder and recordedExchanges', () => {
  it('give back every exchange exactly, however the conversations change and restart', () => {
    fc.assert(
      fc.property(fc.array(exchange, { maxLength: 8 }), fc.nat({ max: 8 }), (calls, restartAt) => {
        const decoded = recordedExchanges(encodeAll(calls, { restartAt }));
        expect(decoded.map(({ runId, system, messages }) => ({ runId, system, messages }))).toEqual(
          calls,
        );
        expect(decoded.map((item) => item.index)).toEqual(calls.map((_, index) => index));
      }),
    );
  });

  it('stores only what changed since the run’s previous exchange', () => {
    const encoder = new ExchangeEncoder();
    const user = (content: string): ChatMessage => ({ role: 'user', content });
    const call = (messages: ChatMessage[]) =>
      encoder.encode({ runId: 'r', callId: 'c', system: 's', messages, response });
    call([user('a')]);
    expect(call([user('a'), user('b')]).request).toEqual({
      system: 's',
      messages: [user('b')],
      messagesFrom: 1,
    });
  });

  it('keeps both exchanges of a call id asked twice (a run started over)', () => {
    const records = recording('simple-run');
    const exchanges = recordedExchanges([...records, ...records]);
    const once = recordedExchanges(records);
    expect(exchanges).toHaveLength(once.length * 2);
    expect(exchanges.at(-1)?.messages).toEqual(once.at(-1)?.messages);
  });
});
