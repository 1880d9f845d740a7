import { RlmError, totalUsage } from '@rlm/protocol';
import type { RunOutcome } from '../run-outcome.js';

// What the OpenAI-compatible doors (chat completions, responses) make of a finished run.

/**
 * Only an answer is the assistant's reply. A run that stopped without one leaves its last response
 * (protocol text such as `FINAL_VAR(answer)` or half-written code) in `rlm.partialAnswer`, not in
 * the reply, where a client would take it for the model's words.
 */
export function replyText(outcome: RunOutcome): string {
  return outcome.answer ?? '';
}

/** A request for JSON of a schema whose run ended with no answer that matched it. */
export function missesSchemaAnswer(schema: unknown, outcome: RunOutcome): boolean {
  return schema !== undefined && outcome.answer === null;
}

/**
 * The client asked for JSON of a schema and there is none: an empty reply would make `parse()`
 * helpers throw a JSON syntax error far from the cause, so the reply is an error naming how the
 * run ended. 422 (a limit, like a budget), which OpenAI clients do not retry. `wanted` names the
 * request's format field, e.g. `response_format.json_schema "city"`.
 */
export function noSchemaAnswer(
  wanted: string,
  outcome: RunOutcome,
  maxIterations: number,
): RlmError<'executor.budget_exceeded'> {
  return new RlmError({
    code: 'executor.budget_exceeded',
    message: `The RLM run ended ${outcome.status} after ${outcome.iterations} iterations without an answer matching ${wanted}; raise the profile's maxIterations, or ask for something the model can answer`,
    details: { limit: outcome.status, used: outcome.iterations, max: maxIterations },
  });
}

/** The run's tokens over the whole tree; cached input counts as prompt tokens, as OpenAI counts it. */
export function runTokens(outcome: RunOutcome) {
  const total = totalUsage(outcome.usage);
  const input = total.inputTokens + total.cacheReadTokens + total.cacheWriteTokens;
  return {
    input,
    cached: total.cacheReadTokens,
    output: total.outputTokens,
    costUsd: total.costUsd,
  };
}

export function runFailed(outcome: RunOutcome): RlmError<'server.unavailable'> {
  return new RlmError({
    code: 'server.unavailable',
    message: `The RLM run failed: ${outcome.error?.code ?? 'error'}: ${outcome.error?.message ?? 'no detail'}`,
    details: { reason: outcome.error?.code ?? 'run error' },
  });
}

/** Cancels the run when the client goes away before the answer. */
export async function raceDisconnect(
  done: Promise<RunOutcome>,
  signal: AbortSignal,
  cancel: () => Promise<boolean>,
): Promise<RunOutcome> {
  const onAbort = () => void cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await done;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
