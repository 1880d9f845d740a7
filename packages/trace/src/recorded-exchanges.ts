import type { ChatMessage, ModelResponse, TrajectoryRecord } from '@rlm/protocol';

/** The `model-exchange` line of a trajectory. */
export type ModelExchangeRecord = Extract<TrajectoryRecord, { kind: 'model-exchange' }>;

/** One model call as it goes into a trajectory (texts already in their recorded form). */
export interface ExchangeInput {
  runId: string;
  callId: string;
  system: string | undefined;
  messages: readonly ChatMessage[];
  response: ModelResponse | null;
  error?: { code: string; message: string } | undefined;
}

/** A model exchange with its full (recorded-form) message list rebuilt from the deltas. */
export interface RecordedExchange {
  /** Position among the trajectory's exchanges, 0-based. */
  index: number;
  runId: string;
  callId: string;
  system: string | undefined;
  messages: ChatMessage[];
  response: ModelResponse | null;
  error: { code: string; message: string } | undefined;
}

function samePrefixLength(previous: readonly ChatMessage[], next: readonly ChatMessage[]): number {
  const limit = Math.min(previous.length, next.length);
  let index = 0;
  while (
    index < limit &&
    previous[index]?.role === next[index]?.role &&
    previous[index]?.content === next[index]?.content
  ) {
    index++;
  }
  return index;
}

/**
 * Writes model exchanges as deltas: each stores only the messages that differ from the previous
 * exchange of the same run (`messagesFrom`), so a long conversation is not copied again every
 * turn. `recordedExchanges` is its inverse. One encoder per trajectory: a new one (a resumed
 * run) starts each run with a full message list, which decodes the same.
 */
export class ExchangeEncoder {
  readonly #lastMessages = new Map<string, readonly ChatMessage[]>();

  /** The record of one exchange; remembers its messages for the run's next one. */
  encode({ runId, callId, system, messages, response, error }: ExchangeInput): ModelExchangeRecord {
    const previous = this.#lastMessages.get(runId) ?? [];
    const messagesFrom = samePrefixLength(previous, messages);
    this.#lastMessages.set(runId, messages);
    return {
      kind: 'model-exchange',
      runId,
      callId,
      request: {
        ...(system === undefined ? {} : { system }),
        messages: messages.slice(messagesFrom),
        messagesFrom,
      },
      response,
      ...(error === undefined ? {} : { error }),
    };
  }
}

/**
 * Every exchange of a trajectory, in order, with its full message list rebuilt from the deltas
 * `ExchangeEncoder` wrote. A call id may appear twice (a run started over after a restart asks
 * its first calls again); both are kept.
 *
 * @example
 * const byCall = new Map(recordedExchanges(records).map((exchange) => [exchange.callId, exchange]));
 */
export function recordedExchanges(records: readonly TrajectoryRecord[]): RecordedExchange[] {
  const lastByRun = new Map<string, ChatMessage[]>();
  const exchanges: RecordedExchange[] = [];
  for (const record of records) {
    if (record.kind !== 'model-exchange') continue;
    const previous = lastByRun.get(record.runId) ?? [];
    const messages = [
      ...previous.slice(0, record.request.messagesFrom),
      ...record.request.messages,
    ];
    lastByRun.set(record.runId, messages);
    exchanges.push({
      index: exchanges.length,
      runId: record.runId,
      callId: record.callId,
      system: record.request.system,
      messages,
      response: record.response,
      error: record.error,
    });
  }
  return exchanges;
}
