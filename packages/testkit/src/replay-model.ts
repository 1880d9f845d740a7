import {
  type ChatMessage,
  type ErrorCode,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  RlmError,
  type TrajectoryRecord,
} from '@rlm/protocol';

/** One recorded call: what was asked (optional: without it only the order is checked) and what came back. */
export interface ReplayExchange {
  request?: { system?: string | undefined; messages: readonly ChatMessage[] };
  /** `null` when the call failed; `error` then says how. */
  response: ModelResponse | null;
  error?: { code: string; message: string } | undefined;
}

export interface ReplayModelOptions {
  /** @default 'replay/model' */
  id?: string;
  contextWindow?: number;
  /**
   * `strict` serves exchanges in recorded order; `any` serves the first unserved exchange whose
   * request matches (for run trees whose parallel sub-calls may arrive in another order).
   * @default 'strict'
   */
  order?: 'strict' | 'any';
}

/** A `LanguageModel` that plays a recording back, with what it has served so far. */
export interface ReplayModel extends LanguageModel {
  /** How many recorded exchanges have been served. */
  readonly served: number;
  /** How many recorded exchanges are left. */
  readonly remaining: number;
}

/**
 * Creates a model that answers from a recording: the `model-exchange` records of a trajectory
 * (message deltas are rebuilt per run), or a plain list of exchanges or responses. Each call is
 * compared with the recorded request (system prompt, roles, texts); a difference, or a call
 * beyond the recording, throws `executor.replay_divergence` naming the step and both sides.
 * Recorded failures are thrown again as `RlmError` with their recorded code.
 *
 * @throws RlmError `executor.replay_divergence`, or the recorded error's code.
 * @example
 * const model = replayModel(records.filter((record) => record.kind === 'model-exchange'));
 */
export function replayModel(
  recording: readonly (TrajectoryRecord | ReplayExchange | ModelResponse | string)[],
  { id = 'replay/model', contextWindow, order = 'strict' }: ReplayModelOptions = {},
): ReplayModel {
  const exchanges = toExchanges(recording);
  const served = new Set<number>();
  let calls = 0;

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    if (request.signal?.aborted) throw abortedError(id, request.signal);
    const step = calls;
    calls += 1;
    const index = order === 'strict' ? nextStrict(step) : nextMatching(request);
    const exchange = exchanges[index];
    if (exchange === undefined)
      throw divergence(step, { expected: missingExpectation(order), actual: describe(request) });
    served.add(index);
    if (order === 'strict' && exchange.request !== undefined) {
      const difference = compare(exchange.request, request);
      if (difference !== undefined) throw divergence(step, difference);
    }
    if (exchange.response === null) throw recordedFailure(exchange.error);
    return { ...exchange.response };
  }

  function nextStrict(step: number): number {
    return step < exchanges.length ? step : -1;
  }

  function nextMatching(request: ModelRequest): number {
    return exchanges.findIndex(
      (exchange, index) =>
        !served.has(index) &&
        (exchange.request === undefined || compare(exchange.request, request) === undefined),
    );
  }

  return {
    id,
    ...(contextWindow === undefined ? {} : { contextWindow }),
    complete,
    get served() {
      return served.size;
    },
    get remaining() {
      return exchanges.length - served.size;
    },
  };
}

function toExchanges(
  recording: readonly (TrajectoryRecord | ReplayExchange | ModelResponse | string)[],
): ReplayExchange[] {
  const lastByRun = new Map<string, ChatMessage[]>();
  const exchanges: ReplayExchange[] = [];
  for (const item of recording) {
    if (typeof item === 'string') {
      exchanges.push({
        response: { text: item, usage: zeroUsage, stopReason: 'end_turn', model: 'replay/model' },
      });
    } else if ('kind' in item) {
      if (item.kind !== 'model-exchange') continue;
      const previous = lastByRun.get(item.runId) ?? [];
      const messages = [...previous.slice(0, item.request.messagesFrom), ...item.request.messages];
      lastByRun.set(item.runId, messages);
      exchanges.push({
        request: { system: item.request.system, messages },
        response: item.response,
        error: item.error,
      });
    } else if ('text' in item && 'usage' in item) {
      exchanges.push({ response: item });
    } else {
      exchanges.push(item);
    }
  }
  return exchanges;
}

const zeroUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/**
 * Trajectories shorten long messages to a head plus `… + [N chars... sha256:H]`; such a text
 * matches a live one of the same total length that starts with the same head.
 */
const SHORTENED = /… \+ \[(\d+) chars\.\.\. sha256:[0-9a-f]+\]$/;

function sameText(recorded: string, actual: string): boolean {
  if (recorded === actual) return true;
  const marker = SHORTENED.exec(recorded);
  if (marker === null) return false;
  const head = recorded.slice(0, marker.index);
  return actual.length === head.length + Number(marker[1]) && actual.startsWith(head);
}

function compare(
  recorded: NonNullable<ReplayExchange['request']>,
  actual: ModelRequest,
): { expected: string; actual: string } | undefined {
  if (
    (recorded.system ?? '') !== (actual.system ?? '') &&
    !sameText(recorded.system ?? '', actual.system ?? '')
  ) {
    return {
      expected: `system prompt ${clip(recorded.system ?? '')}`,
      actual: `system prompt ${clip(actual.system ?? '')}`,
    };
  }
  if (recorded.messages.length !== actual.messages.length) {
    return {
      expected: `${recorded.messages.length} messages`,
      actual: `${actual.messages.length} messages`,
    };
  }
  for (const [index, message] of recorded.messages.entries()) {
    const live = actual.messages[index];
    if (
      live === undefined ||
      live.role !== message.role ||
      !sameText(message.content, live.content)
    ) {
      return {
        expected: `message ${index} (${message.role}) ${clip(message.content)}`,
        actual: `message ${index} (${live?.role ?? 'none'}) ${clip(live?.content ?? '')}`,
      };
    }
  }
  return undefined;
}

function abortedError(id: string, signal: AbortSignal): RlmError {
  return new RlmError({
    code: 'model.aborted',
    message: `${id}: the call was aborted`,
    details: {},
    cause: signal.reason,
  });
}

function missingExpectation(order: 'strict' | 'any'): string {
  return order === 'strict'
    ? 'no further model call (the recording has ended)'
    : 'a recorded request';
}

/** Re-creates a recorded failure as it was; its details were not recorded. */
function recordedFailure(error: ReplayExchange['error']): RlmError {
  const recorded = error ?? { code: 'model.server_error', message: 'recorded failure' };
  return new RlmError({
    code: recorded.code as ErrorCode,
    message: recorded.message,
    details: {} as never,
  });
}

function divergence(
  step: number,
  { expected, actual }: { expected: string; actual: string },
): RlmError {
  return new RlmError({
    code: 'executor.replay_divergence',
    message: `replayModel: call #${step + 1} diverged from the recording: expected ${expected}, got ${actual}`,
    details: { step, expected, actual },
  });
}

function describe(request: ModelRequest): string {
  const last = request.messages.at(-1);
  return `a call with ${request.messages.length} messages, the last ${clip(last?.content ?? '')}`;
}

function clip(text: string): string {
  return JSON.stringify(text.length <= 120 ? text : `${text.slice(0, 120)}…`);
}
