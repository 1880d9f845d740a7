import { createHash } from 'node:crypto';
import type {
  ChatMessage,
  LanguageModel,
  ModelRequest,
  ModelResponse,
  TrajectoryRecord,
} from '@rlm/protocol';
import { recordedExchanges } from './recorded-exchanges.js';

/** Model responses recorded in a trajectory, served again for identical requests. */
export interface ResponseReplay {
  /** The recorded response for a request with the same system prompt and messages, once each. */
  take(request: ModelRequest): ModelResponse | undefined;
  /** How many responses were served from the recording. */
  readonly served: number;
}

/**
 * Indexes the model exchanges of a trajectory by request (system prompt + full message list, as
 * `recordedExchanges` rebuilds them). A restarted run asks its first turns' questions again;
 * those answers come from here instead of a paid model call. A request that differs in any way
 * (a truncated or redacted recording, changed code output) is not found and goes to the live
 * model, so replay can only save calls, never change an answer.
 */
export function responseReplay(records: readonly TrajectoryRecord[]): ResponseReplay {
  const byRequest = new Map<string, ModelResponse[]>();
  for (const { system, messages, response } of recordedExchanges(records)) {
    if (response === null) continue;
    const key = requestKey(system, messages);
    byRequest.set(key, [...(byRequest.get(key) ?? []), response]);
  }
  let served = 0;
  return {
    take(request) {
      const found = byRequest.get(requestKey(request.system, request.messages))?.shift();
      if (found !== undefined) served += 1;
      return found;
    },
    get served() {
      return served;
    },
  };
}

/** A model that answers from `replay` when it can and calls `model` otherwise. */
export function replayingModel(model: LanguageModel, replay: ResponseReplay): LanguageModel {
  return {
    // Window, output cap and price travel with the model: budgets reserve from them.
    ...model,
    async complete(request) {
      request.signal?.throwIfAborted();
      return replay.take(request) ?? model.complete(request);
    },
  };
}

function requestKey(system: string | undefined, messages: readonly ChatMessage[]): string {
  const canonical = JSON.stringify([
    system ?? null,
    messages.map((message) => [message.role, message.content]),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}
