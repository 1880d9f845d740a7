import type { ChatMessage, ModelResponse, TrajectoryRecord } from '@rlm/protocol';

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

/** Rebuilds every exchange's full message list (each stores only what changed since its run's previous one). */
export function recordedExchanges(
  records: readonly TrajectoryRecord[],
): Map<string, RecordedExchange> {
  const lastByRun = new Map<string, ChatMessage[]>();
  const exchanges = new Map<string, RecordedExchange>();
  for (const record of records) {
    if (record.kind !== 'model-exchange') continue;
    const previous = lastByRun.get(record.runId) ?? [];
    const messages = [
      ...previous.slice(0, record.request.messagesFrom),
      ...record.request.messages,
    ];
    lastByRun.set(record.runId, messages);
    exchanges.set(record.callId, {
      index: exchanges.size,
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
