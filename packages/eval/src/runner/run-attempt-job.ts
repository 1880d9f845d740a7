import { join } from 'node:path';
import { type ErrorCode, errorKind, RlmError } from '@rlm/protocol';
import { isOfflineModelId } from '../offline/offline-model.js';
import { type ScoreFunction, scoreAnswer } from '../scorers/score-answer.js';
import { type AttemptOutcome, describeFailure } from './attempt-outcome.js';
import type { EvalSystem } from './eval-system.js';
import type { ModelResolver } from './model-resolver.js';
import type { ResultRow } from './result-row.js';
import { runBaseAttempt } from './run-base-attempt.js';
import type { Job } from './run-pool.js';
import { type AttemptCache, runRlmAttempt } from './run-rlm-attempt.js';

/**
 * Runs one attempt. Failures of the attempt become an `error` outcome; configuration failures
 * (the same for every task) are thrown; `undefined` means the eval was cancelled.
 */
export async function attemptJob(
  { task, system }: Job,
  {
    resolveModel,
    outDir,
    cache,
    signal,
    now,
  }: {
    resolveModel: ModelResolver;
    outDir: string | undefined;
    cache?: AttemptCache | undefined;
    signal: AbortSignal | undefined;
    now: () => number;
  },
): Promise<AttemptOutcome | undefined> {
  try {
    if (system.kind === 'base')
      return await runBaseAttempt({ system, task, resolveModel, signal, now });
    const trajectoryDir =
      outDir === undefined ? undefined : join(outDir, 'trajectories', system.name);
    return await runRlmAttempt({ system, task, resolveModel, trajectoryDir, cache, signal, now });
  } catch (error) {
    if (signal?.aborted) return undefined;
    // A configuration failure (missing key, unknown driver) is the same for every task: stop.
    if (RlmError.is(error) && isConfigurationError(error.code)) throw error;
    return {
      answer: null,
      status: 'error',
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      latencyMs: 0,
      iterations: 0,
      trajectoryPath: null,
      promptVersion: null,
      truncatedChars: 0,
      contextChars: 0,
      model: system.model,
      error: describeFailure(error),
    };
  }
}

/**
 * A failure that would be the same for every task (bad input or configuration, a missing or
 * refused key) stops the eval: @rlm/protocol's `usage` and `auth` kinds.
 */
function isConfigurationError(code: ErrorCode): boolean {
  const kind = errorKind(code);
  return kind === 'usage' || kind === 'auth';
}

/** Scores an outcome into its result row. */
export function toRow(
  { task, system, attempt }: Job,
  {
    outcome,
    scorers,
    now,
  }: {
    outcome: AttemptOutcome;
    scorers: Readonly<Record<string, ScoreFunction>>;
    now: () => number;
  },
): ResultRow {
  const { score, passed } = scoreAnswer(
    task.scorer,
    { answer: outcome.answer, expected: task.answer },
    { custom: scorers },
  );
  const size = task.meta['size'];
  return {
    taskId: task.id,
    system: system.name,
    attempt,
    benchmark: typeof task.meta['benchmark'] === 'string' ? task.meta['benchmark'] : 'custom',
    expected: task.answer,
    score,
    passed,
    ...outcome,
    ...(hasNominalCost(system) ? { costNominal: true } : {}),
    // Generated tasks are grouped by the size asked for; others by the length actually read.
    contextChars: typeof size === 'number' ? size : outcome.contextChars,
    finishedAt: new Date(now()).toISOString(),
  };
}

/** Whether a system's costs are nominal: one of its models is offline (`testkit:`), which costs nothing. */
export function hasNominalCost(system: EvalSystem): boolean {
  if (isOfflineModelId(system.model)) return true;
  return (
    system.kind === 'rlm' && system.subModel !== undefined && isOfflineModelId(system.subModel)
  );
}
