import type { BackendContext } from '../backend-context.js';
import type {
  ConversationStore,
  Exchange,
  ExchangeInput,
  SenderSummary,
} from '../conversation-store.js';
import { normalizeSenderId } from '../normalize-sender-id.js';
import { parseRecentCount } from '../parse-input.js';
import { prepareExchange } from '../prepare-exchange.js';

/**
 * Conversations kept in a Map whose insertion order is activity order: an append re-inserts the
 * sender, so the first sender is the least recently active one to evict.
 */
export class MemoryConversationStore implements ConversationStore {
  readonly #senders = new Map<string, Exchange[]>();
  readonly #context: BackendContext;

  constructor(context: BackendContext) {
    this.#context = context;
  }

  async append(senderId: string, input: ExchangeInput): Promise<Exchange> {
    this.#context.assertOpen('conversations.append');
    const { senderId: sender, exchange } = prepareExchange(this.#context, senderId, input);
    const exchanges = this.#senders.get(sender) ?? [];
    exchanges.push(exchange);
    exchanges.splice(0, Math.max(0, exchanges.length - this.#context.limits.exchangesPerSender));
    this.#senders.delete(sender);
    this.#senders.set(sender, exchanges);
    for (const oldest of this.#senders.keys()) {
      if (this.#senders.size <= this.#context.limits.senders) break;
      this.#senders.delete(oldest);
    }
    return { ...exchange };
  }

  async get(senderId: string): Promise<Exchange[]> {
    this.#context.assertOpen('conversations.get');
    return this.#exchangesOf(senderId);
  }

  async recent(senderId: string, n: number): Promise<Exchange[]> {
    this.#context.assertOpen('conversations.recent');
    const count = parseRecentCount(n);
    return count === 0 ? [] : this.#exchangesOf(senderId).slice(-count);
  }

  async listSenders(): Promise<SenderSummary[]> {
    this.#context.assertOpen('conversations.listSenders');
    return [...this.#senders.entries()].reverse().map(([senderId, exchanges]) => ({
      senderId,
      count: exchanges.length,
      lastActivityAt: exchanges.at(-1)?.at ?? 0,
    }));
  }

  #exchangesOf(senderId: string): Exchange[] {
    const exchanges = this.#senders.get(normalizeSenderId(senderId)) ?? [];
    return exchanges.map((exchange) => ({ ...exchange }));
  }
}
