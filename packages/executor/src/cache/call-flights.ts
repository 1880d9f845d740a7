import type { ModelResponse } from '@rlm/protocol';

/** The outcome of one call under a key: the reply, and whether the store already had it. */
export interface FlightOutcome {
  response: ModelResponse;
  /** The run that paid for the reply. */
  paidByRunId: string;
  /** True when the reply came from the store (nobody in this flight paid for it). */
  stored: boolean;
}

/**
 * Calls in flight by cache key, shared by every run of one runner: a call whose key is already
 * on its way waits for that one instead of sending its own (single-flight).
 */
export type CallFlights = Map<string, Promise<FlightOutcome>>;

export function createCallFlights(): CallFlights {
  return new Map();
}
