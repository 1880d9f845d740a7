import type { Context } from '@opentelemetry/api';
import {
  type ChatMessage,
  costOfCall,
  type LanguageModel,
  type ModelResponse,
  RlmError,
  type TokenUsage,
} from '@rlm/protocol';
import { refusedError } from '../models/model-error.js';
import type { CallEstimate, Reservation } from './budget-scope.js';
import { errorInfo } from './error-info.js';
import { raceAbort } from './race-abort.js';
import type { RunNode } from './run-node.js';

/**
 * Output tokens reserved for a call to a model that does not say how many it may produce
 * (`LanguageModel.maxOutputTokens`); the SDK clients' own default cap. @default 16_000
 */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 16_000;

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
  /** The span context the call's span goes under (a sub-call's); the node's innermost by default. */
  traceContext?: Context | undefined;
}

/**
 * Tokens added per message and per request for roles and framing (providers count a few for
 * each); generous, so a prompt of many tiny messages stays within its reservation.
 */
const FRAMING_TOKENS = 8;

/**
 * UTF-8 bytes of `text`. Every token of a byte-level BPE tokenizer (OpenAI's, Anthropic's, the
 * open models') covers at least one byte, so the bytes bound the tokens from above whatever the
 * script: CJK text is ~1 token per character (3 bytes), emoji 1–3 tokens (4 bytes), where a
 * four-characters-a-token estimate undercounts dense text three- to eightfold.
 */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
      continue;
    }
    // Three bytes, and so is a lone surrogate (sent as U+FFFD); a pair is four for two units.
    bytes += 2;
    const next = code <= 0xdbff && code >= 0xd800 ? text.charCodeAt(at + 1) : 0;
    if (next >= 0xdc00 && next <= 0xdfff) at++;
  }
  return bytes;
}

/** The most input tokens a prompt can be: its bytes plus framing per message. */
export function promptTokenBound(
  system: string | undefined,
  messages: readonly ChatMessage[],
): number {
  let tokens = FRAMING_TOKENS + (system === undefined ? 0 : utf8Bytes(system) + FRAMING_TOKENS);
  for (const message of messages) tokens += utf8Bytes(message.content) + FRAMING_TOKENS;
  return tokens;
}

/** Characters of the messages' contents (a loop: the root's grows by three messages a turn). */
function contentChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += message.content.length;
  return chars;
}

/** The most a call may use: its prompt's token bound, its output cap, and their price. */
function worstCase(
  model: LanguageModel,
  inputTokens: number,
): CallEstimate & { usage: TokenUsage } {
  const usage: TokenUsage = {
    inputTokens,
    outputTokens: model.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
  return {
    usage,
    tokens: usage.inputTokens + usage.outputTokens,
    costUsd: worstCost(model, usage) ?? (model.reportsCost === true ? Number.POSITIVE_INFINITY : 0),
  };
}

/**
 * The price of `usage` with its input billed at the dearest input rate (plain, cache write 5m or
 * 1h: a prompt-caching provider may bill the whole prompt as a cache write).
 */
function worstCost(model: LanguageModel, usage: TokenUsage): number | undefined {
  if (model.pricing === undefined) return undefined;
  const input = usage.inputTokens;
  const base = { inputTokens: 0, outputTokens: usage.outputTokens, cacheReadTokens: 0 };
  return Math.max(
    costOfCall(model.pricing, {
      ...base,
      inputTokens: input,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    }),
    costOfCall(model.pricing, { ...base, cacheWrite5mTokens: input, cacheWrite1hTokens: 0 }),
    costOfCall(model.pricing, { ...base, cacheWrite5mTokens: 0, cacheWrite1hTokens: input }),
  );
}

function costOf(model: LanguageModel, usage: TokenUsage): number | undefined {
  if (model.pricing === undefined) return undefined;
  return costOfCall(model.pricing, {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWrite5mTokens: usage.cacheWriteTokens,
    cacheWrite1hTokens: 0,
  });
}

/**
 * The dearest price per token each model without a price table has reported (`costUsd` over its
 * tokens, OpenRouter's `usage.cost`): what prices a call of that model that failed before it
 * reported a cost, which the provider bills all the same. Weak: it keeps no model alive.
 */
const reportedRates = new WeakMap<LanguageModel, number>();

function tokensIn(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Learns a model's price per token from a call whose cost the provider reported. */
function noteReportedRate(model: LanguageModel, response: ModelResponse): void {
  if (model.pricing !== undefined || response.costUsd === undefined) return;
  const tokens = tokensIn(response.usage);
  if (tokens <= 0 || !(response.costUsd > 0)) return;
  const rate = response.costUsd / tokens;
  if (rate > (reportedRates.get(model) ?? 0)) reportedRates.set(model, rate);
}

/**
 * The cost of `usage` for a call that reported none: its price table's, else the model's dearest
 * reported price per token, else 0 (a provider that reports costs, before it reported any).
 */
function estimatedCost(model: LanguageModel, usage: TokenUsage): number {
  return costOf(model, usage) ?? tokensIn(usage) * (reportedRates.get(model) ?? 0);
}

/**
 * What a failed call is charged: what the provider reported before it failed; for an aborted
 * call that reported nothing, its reserved worst case (the provider may have billed it all).
 * Without a price table the cost is estimated (see `estimatedCost`).
 */
function failedCallUsage(
  model: LanguageModel,
  {
    reported,
    aborted,
    worst,
  }: {
    reported: TokenUsage | undefined;
    aborted: boolean;
    worst: { usage: TokenUsage; costUsd: number };
  },
): { usage: TokenUsage; costUsd: number } | null {
  if (reported !== undefined) return { usage: reported, costUsd: estimatedCost(model, reported) };
  if (!aborted) return null;
  return {
    usage: worst.usage,
    costUsd: Number.isFinite(worst.costUsd) ? worst.costUsd : estimatedCost(model, worst.usage),
  };
}

/**
 * Makes one model call for `node`: reserves its worst case from the tree's budget (refusing it at
 * once when there is no room), emits start and end events, records the exchange in the
 * trajectory, settles the reservation with the real usage (for a failed or aborted call, what
 * the provider reported, else the reservation), and gives up as soon as the scope or `signal`
 * aborts.
 *
 * @throws RlmError `executor.budget_exceeded` when the budget has no room for the call;
 *   `model.refused` when the model declined to answer (after the call is charged); the model's
 *   errors; the scope's abort reason.
 */
export async function callModel(node: RunNode, input: CallModelInput): Promise<ModelResponse> {
  const { tree } = node;
  const { model, system, messages, purpose } = input;
  const signal =
    input.signal === undefined
      ? node.scope.signal
      : AbortSignal.any([node.scope.signal, input.signal]);
  signal.throwIfAborted();
  const promptChars = (system?.length ?? 0) + contentChars(messages);
  // An invocation's own turn is refused only for a spent budget, never for room that sub-calls
  // hold: refusing it would end the whole invocation. Children's turns stay within their shares.
  const essential = purpose !== 'sub';
  const worst = node.scope.capsSpend ? worstCase(model, promptTokenBound(system, messages)) : null;
  const reservation =
    worst === null ? null : await node.scope.reserve(worst, { essential, signal });
  const callId = input.callId ?? node.nextCallId();
  node.emit({
    type: 'model-call-start',
    callId,
    model: model.id,
    purpose,
    messageCount: messages.length,
    promptChars,
  });
  const startedAt = tree.now();
  let reported: TokenUsage | undefined;
  const onUsage = (usage: TokenUsage) => {
    reported = usage;
  };
  // Spelled out rather than spread: the same keys in the same order, without a copy each call.
  const caller = { purpose, runId: node.runId };
  const request =
    system === undefined
      ? { messages, signal, onUsage, caller }
      : { system, messages, signal, onUsage, caller };
  let response: ModelResponse;
  try {
    const traced = tree.tracing.modelCall(
      input.traceContext ?? node.spans.current(),
      { model: model.id, purpose, callId, maxTokens: model.maxOutputTokens },
      () => tree.respond({ model, request, runId: node.runId, callId }),
    );
    response = await raceAbort(traced, signal);
  } catch (error) {
    failed(
      node,
      { error, callId, input, startedAt, reservation },
      {
        reported,
        aborted: signal.aborted || RlmError.is(error, 'model.aborted'),
        worst: worst ?? worstCase(model, promptTokenBound(system, messages)),
      },
    );
    throw error;
  }
  tree.recorder?.exchange({ runId: node.runId, callId, system, messages, response });
  noteReportedRate(model, response);
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
    ...(response.cache === undefined ? {} : { cache: response.cache }),
  });
  if (reservation === null) node.scope.charge(response);
  else node.scope.settle(reservation, response);
  // Charged like any call, then an error: a refusal is not an answer the loop can go on from.
  if (response.stopReason === 'refusal') throw refusedError(response);
  return response;
}

/** Records, reports and settles a call that threw. */
function failed(
  node: RunNode,
  {
    error,
    callId,
    input,
    startedAt,
    reservation,
  }: {
    error: unknown;
    callId: string;
    input: CallModelInput;
    startedAt: number;
    /** `null` when no scope caps tokens or cost. */
    reservation: Reservation | null;
  },
  charge: Parameters<typeof failedCallUsage>[1],
): void {
  const { tree } = node;
  const { model, system, messages } = input;
  const info = errorInfo(error);
  const used = failedCallUsage(model, charge);
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
    ...(used === null ? {} : { usage: used.usage, costUsd: used.costUsd, usageEstimated: true }),
  });
  const call = used === null ? null : { model: model.id, usage: used.usage, costUsd: used.costUsd };
  if (reservation !== null) node.scope.settle(reservation, call);
  else if (call !== null) node.scope.charge(call);
}
