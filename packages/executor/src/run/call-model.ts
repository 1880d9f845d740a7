import type { ChatMessage, LanguageModel, ModelResponse } from '@rlm/protocol';
import { errorInfo } from './error-info.js';
import { raceAbort } from './race-abort.js';
import type { RunNode } from './run-node.js';

/** One model call to make for a node. */
export interface CallModelInput {
  model: LanguageModel;
  system?: string | undefined;
  messages: ChatMessage[];
  purpose: 'root' | 'sub' | 'default_answer' | 'summary';
  /** Reuse the id of the sub-call this model call serves. */
  callId?: string;
  /** Aborts this call only (a stopped block); the node's scope aborts it too. */
  signal?: AbortSignal | undefined;
}

/**
 * Makes one model call for `node`: emits start and end events, records the exchange in the
 * trajectory, charges the usage to the node's budget scope (and so to the whole tree), and gives
 * up as soon as the scope or `signal` aborts.
 */
export async function callModel(node: RunNode, input: CallModelInput): Promise<ModelResponse> {
  const { tree } = node;
  const { model, system, messages, purpose } = input;
  const signal =
    input.signal === undefined
      ? node.scope.signal
      : AbortSignal.any([node.scope.signal, input.signal]);
  signal.throwIfAborted();
  const callId = input.callId ?? node.nextCallId();
  const promptChars =
    (system?.length ?? 0) + messages.reduce((sum, message) => sum + message.content.length, 0);
  node.emit({
    type: 'model-call-start',
    callId,
    model: model.id,
    purpose,
    messageCount: messages.length,
    promptChars,
  });
  const startedAt = tree.now();
  const request = { ...(system === undefined ? {} : { system }), messages, signal };
  let response: ModelResponse;
  try {
    response = await raceAbort(tree.respond({ model, request, runId: node.runId, callId }), signal);
  } catch (error) {
    const info = errorInfo(error);
    tree.recorder?.exchange({
      runId: node.runId,
      callId,
      system,
      messages,
      response: null,
      error: info,
    });
    node.emit({
      type: 'model-call-end',
      callId,
      model: model.id,
      ok: false,
      durationMs: tree.now() - startedAt,
      error: info,
    });
    throw error;
  }
  tree.recorder?.exchange({ runId: node.runId, callId, system, messages, response });
  node.emit({
    type: 'model-call-end',
    callId,
    model: response.model,
    ok: true,
    usage: response.usage,
    ...(response.costUsd === undefined ? {} : { costUsd: response.costUsd }),
    durationMs: tree.now() - startedAt,
    stopReason: response.stopReason,
    ...(response.requestId === undefined ? {} : { requestId: response.requestId }),
    responseChars: response.text.length,
  });
  node.scope.charge(response);
  return response;
}
