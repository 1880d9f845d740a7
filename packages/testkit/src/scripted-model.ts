import {
  costOfCall,
  type LanguageModel,
  type ModelPricing,
  type ModelRequest,
  type ModelResponse,
  modelResponseSchema,
  RlmError,
} from '@rlm/protocol';
import { estimateTokens } from './estimate-tokens.js';
import { sleep } from './sleep.js';

/**
 * One scripted answer: a string (the response text), a partial `ModelResponse` (missing fields
 * are filled in), an `Error` (thrown by `complete`), or a function of the request that returns
 * any of these (possibly asynchronously).
 */
export type ScriptedStep =
  | string
  | ScriptedResponse
  | Error
  | ((request: ModelRequest, index: number) => ScriptedStepValue | Promise<ScriptedStepValue>);

/** What a step function may return. */
export type ScriptedStepValue = string | ScriptedResponse | Error;

/** A response with every field optional, `usage` included (missing counts are estimated). */
export type ScriptedResponse = Partial<Omit<ModelResponse, 'usage'>> & {
  usage?: Partial<ModelResponse['usage']>;
};

/** A whole script as one function of the request and its 0-based call index. */
export type ScriptFunction = (
  request: ModelRequest,
  index: number,
) => ScriptedStepValue | Promise<ScriptedStepValue>;

/** The default id of a scripted model. */
export const DEFAULT_SCRIPTED_MODEL_ID = 'scripted/model';

export interface ScriptedModelOptions {
  /** The model id (`provider/model`) reported in `id` and in every response. @default DEFAULT_SCRIPTED_MODEL_ID */
  id?: string;
  /** Reported as `contextWindow`. @default 200_000 */
  contextWindow?: number;
  /** Wait this long before answering (abortable), to exercise concurrency and cancellation. @default 0 */
  latencyMs?: number;
  /** Reported as `maxOutputTokens` (what budgets reserve for a call's output). */
  maxOutputTokens?: number;
  /** Reported as `pricing`; a step without `costUsd` is then billed from its usage. */
  pricing?: ModelPricing;
}

/** A `LanguageModel` that answers from a script and records every request. */
export interface ScriptedModel extends LanguageModel {
  readonly contextWindow: number;
  /** Every request received, in arrival order (messages copied at call time; `signal` kept). */
  readonly requests: readonly ModelRequest[];
  /** How many calls were made, including ones that threw. */
  readonly calls: number;
}

/**
 * Creates a `LanguageModel` that answers from a script: a list of steps used in order, or one
 * function of `(request, index)`. Usage is estimated at four characters per token unless a step
 * gives it. `request.signal` is honoured before and during a step.
 *
 * @throws RlmError `testkit.script_exhausted` when a list script has no step left for a call;
 *   `model.aborted` when the request's signal aborts; any `Error` a step supplies, unchanged.
 * @example
 * const model = scriptedModel(['```repl\nprint(context.length)\n```', 'FINAL(42)']);
 * await model.complete({ messages: [{ role: 'user', content: 'hi' }] });
 */
export function scriptedModel(
  script: readonly ScriptedStep[] | ScriptFunction,
  {
    id = DEFAULT_SCRIPTED_MODEL_ID,
    contextWindow = 200_000,
    latencyMs = 0,
    maxOutputTokens,
    pricing,
  }: ScriptedModelOptions = {},
): ScriptedModel {
  const requests: ModelRequest[] = [];
  const steps = typeof script === 'function' ? undefined : [...script];

  async function complete(request: ModelRequest): Promise<ModelResponse> {
    const index = requests.length;
    requests.push({ ...request, messages: request.messages.map((message) => ({ ...message })) });
    throwIfAborted(request.signal);
    if (latencyMs > 0) await abortableDelay(latencyMs, request.signal);
    const step = steps === undefined ? (script as ScriptFunction) : steps[index];
    if (step === undefined) {
      throw new RlmError({
        code: 'testkit.script_exhausted',
        message: `scriptedModel: call #${index + 1} has no scripted step (the script has ${steps?.length ?? 0})`,
        details: { calls: index + 1, steps: steps?.length ?? 0 },
      });
    }
    const value =
      typeof step === 'function' ? await raceAbort(step(request, index), request.signal) : step;
    throwIfAborted(request.signal);
    if (value instanceof Error) throw value;
    return toResponse(value, { request, model: id, index, pricing });
  }

  return {
    id,
    contextWindow,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(pricing === undefined ? {} : { pricing }),
    requests,
    get calls() {
      return requests.length;
    },
    complete,
  };
}

interface ResponseContext {
  request: ModelRequest;
  model: string;
  index: number;
  pricing: ModelPricing | undefined;
}

function toResponse(
  value: string | ScriptedResponse,
  { request, model, index, pricing }: ResponseContext,
): ModelResponse {
  const partial = typeof value === 'string' ? { text: value } : value;
  const text = partial.text ?? '';
  const promptText = (request.system ?? '') + request.messages.map((m) => m.content).join('');
  const usage = {
    inputTokens: estimateTokens(promptText),
    outputTokens: Math.max(1, estimateTokens(text)),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    ...partial.usage,
  };
  const costUsd =
    partial.costUsd ??
    (pricing === undefined
      ? undefined
      : costOfCall(pricing, {
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          cacheReadTokens: usage.cacheReadTokens,
          cacheWrite5mTokens: usage.cacheWriteTokens,
          cacheWrite1hTokens: 0,
        }));
  return modelResponseSchema.parse({
    text,
    usage,
    stopReason: partial.stopReason ?? 'end_turn',
    model: partial.model ?? model,
    requestId: partial.requestId ?? `req_scripted_${index + 1}`,
    ...(costUsd === undefined ? {} : { costUsd }),
    ...(partial.refusal === undefined ? {} : { refusal: partial.refusal }),
  });
}

function abortError(signal: AbortSignal): RlmError<'model.aborted'> {
  return new RlmError({
    code: 'model.aborted',
    message: 'The model call was aborted',
    details: {},
    cause: signal.reason,
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

function raceAbort<T>(value: T | Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return Promise.resolve(value);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(value).then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, { signal });
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    throw error;
  }
}
