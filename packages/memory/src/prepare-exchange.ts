import type { BackendContext } from './backend-context.js';
import { type Exchange, type ExchangeInput, exchangeInputSchema } from './conversation-store.js';
import { normalizeSenderId } from './normalize-sender-id.js';
import { parseId, parseInput } from './parse-input.js';
import { truncateText } from './truncate-text.js';

/** A validated append: the canonical sender and the exchange as it will be stored. */
export interface PreparedExchange {
  senderId: string;
  exchange: Exchange;
}

/**
 * Applies the conversation rules every backend shares before anything is written: sender id
 * normalised, input validated, bodies truncated, `at` defaulted to the clock.
 * @throws RlmError `protocol.invalid_message`
 */
export function prepareExchange(
  context: BackendContext,
  senderId: string,
  input: ExchangeInput,
): PreparedExchange {
  const parsed = parseInput(exchangeInputSchema, input, 'exchange');
  const maxChars = context.limits.exchangeChars;
  return {
    senderId: normalizeSenderId(parseId(senderId, 'sender id')),
    exchange: {
      messageId: parsed.messageId,
      senderBody: truncateText(parsed.senderBody, maxChars),
      agentReply: truncateText(parsed.agentReply, maxChars),
      turnId: parsed.turnId,
      at: parsed.at ?? context.now(),
    },
  };
}
