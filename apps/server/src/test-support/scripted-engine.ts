import {
  addCallUsage,
  emptyUsage,
  type LanguageModel,
  type ModelResponse,
  parseFinalMarker,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
  type RunStatus,
} from '@rlm/protocol';
import type { RunEngine, RunEngineInput } from '../run-engine.js';

type Emit = (event: Record<string, unknown>) => void;

/**
 * A test `RunEngine` with no sandbox: each iteration is one call of a (scripted) model, and a
 * `FINAL(...)` line ends the run. It emits protocol-valid events in the executor's order, honours
 * the abort signal and the iteration budget, so server mechanics (queueing, persistence, SSE,
 * cancellation, load) are tested without the cost of a REPL per run. Runs that need code
 * execution use the real executor engine.
 */
export function scriptedEngine(modelFor: (input: RunEngineInput) => LanguageModel): RunEngine {
  return {
    async run(input) {
      const model = modelFor(input);
      const started = Date.now();
      const base = {
        v: 1,
        runId: input.runId,
        parentRunId: null,
        rootRunId: input.runId,
        depth: 0,
      } as const;
      const emit: Emit = (event) =>
        input.onEvent({ ...base, at: Date.now(), ...event } as RunEvent);
      emit({
        type: 'run-start',
        query: input.query,
        model: model.id,
        context: [],
        maxIterations: input.budget.maxIterations,
        maxDepth: input.budget.maxDepth,
        promptVersion: 'scripted',
      });
      const { usage, answer, partial, status, error, iterations } = await loop({
        model,
        input,
        emit,
      });
      const durationMs = Date.now() - started;
      const partialAnswer = status === 'completed' ? null : partial;
      emit({
        type: 'run-end',
        status,
        answer,
        partialAnswer,
        usage,
        iterations,
        durationMs,
        // Like the executor: the end reason is the run-end's own.
        ...(error === null ? {} : { error }),
      });
      return {
        runId: input.runId,
        rootRunId: input.runId,
        parentRunId: null,
        depth: 0,
        model: model.id,
        query: input.query,
        answer,
        status,
        partialAnswer,
        usage,
        iterations,
        executionTime: durationMs,
        trajectoryPath: null,
        error,
      } satisfies RLMChatCompletion;
    },
  };
}

/** Iterates until a FINAL answer, a failure or the iteration budget. */
async function loop({
  model,
  input,
  emit,
}: {
  model: LanguageModel;
  input: RunEngineInput;
  emit: Emit;
}) {
  let usage = emptyUsage();
  let answer: string | null = null;
  let partial: string | null = null;
  let status: RunStatus = 'max_iterations';
  let error: { code: string; message: string } | null = null;
  let iterations = 0;
  while (iterations < input.budget.maxIterations && status === 'max_iterations') {
    const outcome = await iterate({ model, input, emit, iteration: iterations });
    iterations += 1;
    if ('failure' in outcome) {
      status = input.signal.aborted ? 'cancelled' : 'error';
      error = input.signal.aborted ? null : outcome.failure;
      if (error !== null) emit({ type: 'error', error });
      break;
    }
    usage = addCallUsage(usage, { model: outcome.response.model, usage: outcome.response.usage });
    partial = outcome.response.text;
    if (outcome.final !== null) {
      answer = outcome.final;
      status = 'completed';
      emit({ type: 'final-answer', answer, source: 'text' });
    }
  }
  return { usage, answer, partial, status, error, iterations };
}

/** One iteration: one model call with its events; the FINAL answer in the reply, if any. */
async function iterate({
  model,
  input,
  emit,
  iteration,
}: {
  model: LanguageModel;
  input: RunEngineInput;
  emit: Emit;
  iteration: number;
}): Promise<
  { response: ModelResponse; final: string | null } | { failure: { code: string; message: string } }
> {
  emit({ type: 'iteration-start', iteration });
  const callId = `${input.runId}:${iteration}`;
  const common = { callId, model: model.id };
  emit({
    type: 'model-call-start',
    ...common,
    purpose: 'root',
    messageCount: 1,
    promptChars: input.query.length,
  });
  const callStarted = Date.now();
  try {
    const response = await model.complete({
      ...(input.systemPrompt === undefined ? {} : { system: input.systemPrompt }),
      messages: [{ role: 'user', content: input.query }],
      signal: input.signal,
    });
    const durationMs = Date.now() - callStarted;
    emit({
      type: 'model-call-end',
      ...common,
      ok: true,
      usage: response.usage,
      durationMs,
      responseChars: response.text.length,
    });
    const marker = parseFinalMarker(response.text);
    const final = marker?.kind === 'final' ? marker.value : null;
    emit({
      type: 'iteration-end',
      iteration,
      response: response.text,
      finalAnswer: final,
      durationMs,
    });
    return { response, final };
  } catch (caught) {
    const failure = RlmError.is(caught)
      ? { code: caught.code, message: caught.message }
      : { code: 'model.network', message: String(caught) };
    emit({
      type: 'model-call-end',
      ...common,
      ok: false,
      durationMs: Date.now() - callStarted,
      error: failure,
    });
    return { failure };
  }
}
