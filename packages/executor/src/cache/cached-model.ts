import type { CallCacheStore } from '@rlm/memory';
import {
  type CacheHit,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  RlmError,
  type RunCache,
} from '@rlm/protocol';
import { raceAbort } from '../run/race-abort.js';
import { callCacheKey } from './call-cache-key.js';
import type { CallFlights, FlightOutcome } from './call-flights.js';

/** Where one run's cached model stores, and which calls share an answer. */
export interface CachedModelOptions {
  store: CallCacheStore;
  settings: RunCache;
  /** The root run id: the partition of `tree` scope, and who pays for what this run stores. */
  treeId: string;
  flights: CallFlights;
}

const NO_TOKENS = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

/**
 * `model` with the sub-call cache in front: a sub-call (`llm_query`, or `rlm_query` at the depth
 * limit) whose key is stored is answered from the store at no cost; one whose key is on its way
 * waits for that call; any other is made and, if it ended normally, stored. Root turns, calls
 * sent with a temperature above 0 (unless `includeSampled`), errors, refusals and replies cut at
 * the output cap are never stored. The cache never fails a call: a store that cannot be read or
 * written is skipped.
 */
export function withCallCache(model: LanguageModel, options: CachedModelOptions): LanguageModel {
  const { settings } = options;
  const sampled = (model.temperature ?? 0) > 0 && !settings.includeSampled;
  return {
    ...model,
    complete(request) {
      const caller = request.caller;
      if (caller?.purpose !== 'sub' || sampled) return model.complete(request);
      const partition =
        settings.scope === 'shared'
          ? 'shared'
          : settings.scope === 'tree'
            ? `tree:${options.treeId}`
            : `run:${caller.runId}`;
      return cachedCall({ model, request, key: callCacheKey(model, request, partition) }, options);
    },
  };
}

/** One sub-call the cache may answer. */
interface KeyedCall {
  model: LanguageModel;
  request: ModelRequest;
  key: string;
}

async function cachedCall(call: KeyedCall, options: CachedModelOptions): Promise<ModelResponse> {
  const { request, key } = call;
  const { flights } = options;
  for (;;) {
    const inFlight = flights.get(key);
    if (inFlight === undefined) break;
    try {
      const outcome = await (request.signal === undefined
        ? inFlight
        : raceAbort(inFlight, request.signal));
      return hit(outcome, key);
    } catch (error) {
      request.signal?.throwIfAborted();
      // The call it waited for was stopped by its own caller: make this one itself.
      if (!isAbort(error)) throw error;
      if (flights.get(key) === inFlight) flights.delete(key);
    }
  }
  const flight = lead(call, options);
  flights.set(key, flight);
  try {
    const outcome = await flight;
    return outcome.stored ? hit(outcome, key) : outcome.response;
  } finally {
    flights.delete(key);
  }
}

/** Reads the store, else makes the call and stores what may be stored. */
async function lead(
  { model, request, key }: KeyedCall,
  { store, settings, treeId }: CachedModelOptions,
): Promise<FlightOutcome> {
  const found = await store.get(key, { maxAgeMs: settings.ttlMs }).catch(() => undefined);
  if (found !== undefined) {
    const response = parseStored(found.response);
    if (response !== undefined) {
      return { response, paidByRunId: found.paidByRunId, stored: true };
    }
  }
  const response = await model.complete(request);
  const paidByRunId = request.caller?.runId ?? treeId;
  if (storable(response)) {
    const { requestId: _requestId, ...kept } = response;
    await store
      .put({
        key,
        response: JSON.stringify(kept),
        paidByRunId,
        costUsd: response.costUsd ?? 0,
        tokens: response.usage.inputTokens + response.usage.outputTokens,
      })
      .catch(() => undefined);
  }
  return { response, paidByRunId, stored: false };
}

/** A reply ended by the model itself; refusals, cut replies and unknown stops are not kept. */
function storable(response: ModelResponse): boolean {
  return response.stopReason === 'end_turn' || response.stopReason === 'stop_sequence';
}

/** The reply as a hit: free, marked with its key and who paid. */
function hit({ response, paidByRunId }: FlightOutcome, key: string): ModelResponse {
  const { requestId: _requestId, cache: _cache, ...rest } = response;
  const cache: CacheHit = {
    key,
    paidByRunId,
    savedCostUsd: response.costUsd ?? 0,
    savedTokens: response.usage.inputTokens + response.usage.outputTokens,
  };
  return { ...rest, usage: { ...NO_TOKENS }, costUsd: 0, cache };
}

function parseStored(text: string): ModelResponse | undefined {
  try {
    const value = JSON.parse(text) as ModelResponse;
    return typeof value.text === 'string' && typeof value.model === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function isAbort(error: unknown): boolean {
  return (
    RlmError.is(error, 'model.aborted') ||
    (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
  );
}
