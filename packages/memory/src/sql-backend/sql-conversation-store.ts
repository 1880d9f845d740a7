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
import type { SqlDriver } from './sql-driver.js';

interface ExchangeRow {
  message_id: string;
  sender_body: string;
  agent_reply: string;
  turn_id: string;
  at: number;
}

const EXCHANGE_COLUMNS = 'message_id, sender_body, agent_reply, turn_id, at';

/**
 * Senders and exchanges in two tables. `activity_seq` orders senders by their latest append
 * (timestamps can tie), and deleting a sender cascades to its exchanges.
 */
export class SqlConversationStore implements ConversationStore {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;
  readonly #agentId: string;

  constructor(driver: SqlDriver, context: BackendContext, agentId: string) {
    this.#driver = driver;
    this.#context = context;
    this.#agentId = agentId;
  }

  async append(senderId: string, input: ExchangeInput): Promise<Exchange> {
    this.#context.assertOpen('conversations.append');
    const { senderId: sender, exchange } = prepareExchange(this.#context, senderId, input);
    const agent = this.#agentId;
    const { exchangesPerSender, senders } = this.#context.limits;
    await this.#driver.transaction(
      async (tx) => {
        await tx.run(
          `INSERT INTO conversation_senders (agent_id, sender_id, last_activity_at, activity_seq)
         VALUES (?, ?, ?,
           (SELECT COALESCE(MAX(activity_seq), 0) + 1 FROM conversation_senders WHERE agent_id = ?))
         ON CONFLICT (agent_id, sender_id) DO UPDATE SET
           last_activity_at = excluded.last_activity_at, activity_seq = excluded.activity_seq`,
          [agent, sender, exchange.at, agent],
        );
        await tx.run(
          `INSERT INTO conversation_exchanges (agent_id, sender_id, ${EXCHANGE_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            agent,
            sender,
            exchange.messageId,
            exchange.senderBody,
            exchange.agentReply,
            exchange.turnId,
            exchange.at,
          ],
        );
        await tx.run(
          `DELETE FROM conversation_exchanges WHERE agent_id = ? AND sender_id = ? AND id <= (
           SELECT id FROM conversation_exchanges WHERE agent_id = ? AND sender_id = ?
           ORDER BY id DESC LIMIT 1 OFFSET ?)`,
          [agent, sender, agent, sender, exchangesPerSender],
        );
        await tx.run(
          `DELETE FROM conversation_senders WHERE agent_id = ? AND activity_seq <= (
           SELECT activity_seq FROM conversation_senders WHERE agent_id = ?
           ORDER BY activity_seq DESC LIMIT 1 OFFSET ?)`,
          [agent, agent, senders],
        );
      },
      { lock: `conversations:${agent}` },
    );
    return exchange;
  }

  async get(senderId: string): Promise<Exchange[]> {
    this.#context.assertOpen('conversations.get');
    const rows = await this.#driver.all<ExchangeRow>(
      `SELECT ${EXCHANGE_COLUMNS} FROM conversation_exchanges
       WHERE agent_id = ? AND sender_id = ? ORDER BY id`,
      [this.#agentId, normalizeSenderId(senderId)],
    );
    return rows.map(toExchange);
  }

  async recent(senderId: string, n: number): Promise<Exchange[]> {
    this.#context.assertOpen('conversations.recent');
    const count = parseRecentCount(n);
    if (count === 0) return [];
    const rows = await this.#driver.all<ExchangeRow>(
      `SELECT ${EXCHANGE_COLUMNS} FROM conversation_exchanges
       WHERE agent_id = ? AND sender_id = ? ORDER BY id DESC LIMIT ?`,
      [this.#agentId, normalizeSenderId(senderId), count],
    );
    return rows.reverse().map(toExchange);
  }

  async listSenders(): Promise<SenderSummary[]> {
    this.#context.assertOpen('conversations.listSenders');
    return this.#driver.all<SenderSummary>(
      `SELECT s.sender_id AS "senderId", s.last_activity_at AS "lastActivityAt",
         (SELECT COUNT(*) FROM conversation_exchanges e
          WHERE e.agent_id = s.agent_id AND e.sender_id = s.sender_id) AS "count"
       FROM conversation_senders s WHERE s.agent_id = ? ORDER BY s.activity_seq DESC`,
      [this.#agentId],
    );
  }
}

function toExchange(row: ExchangeRow): Exchange {
  return {
    messageId: row.message_id,
    senderBody: row.sender_body,
    agentReply: row.agent_reply,
    turnId: row.turn_id,
    at: row.at,
  };
}
