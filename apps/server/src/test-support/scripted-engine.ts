import {
  addCallUsage,
  emptyUsage,
  type LanguageModel,
  parseFinalMarker,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
  type RunStatus,
} from '@rlm/protocol';
import type { RunEngine, RunEngineInput } from '../run-engine.js';

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
      const emit = (event: Record<string, unknown>) =>
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
      let usage = emptyUsage();
      let answer: string | null = null;
      let partial: string | null = null;
      let status: RunStatus = 'max_iterations';
      let error: { code: string; message: string } | null = null;
      let iteration = 0;
      for (; iteration < input.budget.maxIterations; iteration += 1) {
        emit({ type: 'iteration-start', iteration });
        const callId = `${input.runId}:${iteration}`;
        emit({
          type: 'model-call-start',
          callId,
          model: model.id,
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
          usage = addCallUsage(usage, {
            model: response.model,
            usage: response.usage,
            ...(response.costUsd === undefined ? {} : { costUsd: response.costUsd }),
          });
          emit({
            type: 'model-call-end',
            callId,
            model: model.id,
            ok: true,
            usage: response.usage,
            durationMs: Date.now() - callStarted,
            responseChars: response.text.length,
          });
          partial = response.text;
          const marker = parseFinalMarker(response.text);
          const final = marker?.kind === 'final' ? marker.value : null;
          emit({
            type: 'iteration-end',
            iteration,
            response: response.text,
            finalAnswer: final,
            durationMs: Date.now() - callStarted,
          });
          if (final !== null) {
            answer = final;
            status = 'completed';
            emit({ type: 'final-answer', answer: final, source: 'text' });
            break;
          }
        } catch (caught) {
          const info = RlmError.is(caught)
            ? { code: caught.code, message: caught.message }
            : { code: 'model.network', message: String(caught) };
          emit({
            type: 'model-call-end',
            callId,
            model: model.id,
            ok: false,
            durationMs: Date.now() - callStarted,
            error: info,
          });
          status = input.signal.aborted ? 'cancelled' : 'error';
          error = input.signal.aborted ? null : info;
          if (error !== null) emit({ type: 'error', error });
          break;
        }
      }
      const result: RLMChatCompletion = {
        runId: input.runId,
        rootRunId: input.runId,
        parentRunId: null,
        depth: 0,
        model: model.id,
        query: input.query,
        answer,
        status,
        partialAnswer: status === 'completed' ? null : partial,
        usage,
        iterations: Math.min(iteration + 1, input.budget.maxIterations),
        executionTime: Date.now() - started,
        trajectoryPath: null,
        error,
      };
      emit({
        type: 'run-end',
        status,
        answer,
        partialAnswer: result.partialAnswer,
        usage,
        iterations: result.iterations,
        durationMs: result.executionTime,
      });
      return result;
    },
  };
}
