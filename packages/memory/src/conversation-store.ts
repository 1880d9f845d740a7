import { z } from 'zod';

/** How many exchanges are kept per sender; the oldest is dropped first (FIFO). */
export const DEFAULT_MAX_EXCHANGES_PER_SENDER = 20;
/** How many senders are kept; the least recently active sender is dropped first. */
export const DEFAULT_MAX_SENDERS = 200;
/**
 * Bodies and replies are cut to this many UTF-16 code units on store: the full text belongs to
 * the caller's inbox/outbox, the store only keeps enough for the prompt's recent-history view.
 */
export const DEFAULT_MAX_EXCHANGE_CHARS = 500;

/** What a caller appends: one inbound message and the agent's reply to it. */
export const exchangeInputSchema = z.object({
  messageId: z.string().min(1),
  senderBody: z.string(),
  agentReply: z.string(),
  turnId: z.string().min(1),
  /** Epoch milliseconds; defaults to the store's clock. */
  at: z.number().optional(),
});
export type ExchangeInput = z.infer<typeof exchangeInputSchema>;

/** A stored exchange (bodies already truncated). */
export const exchangeSchema = exchangeInputSchema.required({ at: true });
export type Exchange = z.infer<typeof exchangeSchema>;

/** One sender known to the store. */
export interface SenderSummary {
  /** The normalised id. */
  senderId: string;
  /** Exchanges stored for this sender (at most the per-sender limit). */
  count: number;
  /** `at` of the sender's latest exchange. */
  lastActivityAt: number;
}

/**
 * Per-sender conversation history for a long-lived agent. Sender ids are normalised (trimmed;
 * `0x` addresses lowercased), so every method accepts any spelling of an id.
 */
export interface ConversationStore {
  /**
   * Stores an exchange for `senderId`, truncating bodies, dropping the sender's oldest exchange
   * beyond the per-sender limit and the least recently active sender beyond the sender limit.
   * @throws RlmError `protocol.invalid_message` for an empty sender id or malformed exchange
   */
  append(senderId: string, exchange: ExchangeInput): Promise<Exchange>;
  /** Every stored exchange of the sender, oldest first (empty for an unknown sender). */
  get(senderId: string): Promise<Exchange[]>;
  /** The sender's last `n` exchanges, oldest first. */
  recent(senderId: string, n: number): Promise<Exchange[]>;
  /** Every sender, most recently active first. */
  listSenders(): Promise<SenderSummary[]>;
}
