import { randomUUID } from 'node:crypto';
import type { RunStore } from '@rlm/memory';
import {
  type JsonValue,
  queryMetadata,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
} from '@rlm/protocol';
import { parseRLMConfig, type ResolvedRLMConfig, type RLMConfig } from './config/rlm-config.js';
import { runInvocation } from './loop/run-invocation.js';
import { iterationsFor, rootSystemPrompt } from './loop/system-prompts.js';
import type { CheckpointData } from './resume/checkpoint-data.js';
import { loadResumePoint } from './resume/load-resume-point.js';
import { EventBus, type RunEventHandler } from './run/event-bus.js';
import { EventQueue } from './run/event-queue.js';
import { liveResponder, type ModelResponder, type RunTree } from './run/run-tree.js';
import { createSession, type RLMSession } from './session/rlm-session.js';
import type { SessionBinding } from './session/session-binding.js';
import { jsonlFileSink } from './trajectory/jsonl-file-sink.js';
import { trajectoryConfig } from './trajectory/trajectory-config.js';
import { TrajectoryRecorder } from './trajectory/trajectory-recorder.js';
import type { TrajectorySink } from './trajectory/trajectory-sink.js';

/** Options of one `completion()` or `stream()` call. */
export interface CompletionOptions {
  /** The question about the context; without it, the context itself is the prompt. */
  query?: string | undefined;
  /** Cancels the whole run tree: in-flight model calls, children and running code. */
  signal?: AbortSignal | undefined;
  /**
   * Payloads after the first: the REPL then holds `context_0` (the first, also `context`),
   * `context_1`, … in this order. Not supported by sessions (one payload per session run).
   */
  contexts?: readonly JsonValue[] | undefined;
  /**
   * This run id ran before and stopped before its first checkpoint (a server restart): run it
   * again from its first turn as the same run. It begins with `run-resume` (`fromIteration: 0`)
   * instead of a second `run-start`, and its trajectory goes on after the earlier attempt's (a
   * `dir` file is appended to, no second header is written). Give the id with `generateId`.
   */
  rerun?: boolean | undefined;
}

/** A configured Recursive Language Model. */
export interface RLM {
  /** The validated configuration. */
  readonly config: ResolvedRLMConfig;
  /**
   * Runs the RLM over `context` to its end. Never rejects for model, code or budget failures:
   * they are a `status` (with `error` and `partialAnswer`) on the result.
   */
  completion(context: JsonValue, options?: CompletionOptions): Promise<RLMChatCompletion>;
  /** The same run as an ordered stream of events; breaking out of the loop cancels the run. */
  stream(context: JsonValue, options?: CompletionOptions): AsyncIterable<RunEvent>;
  /** A persistent session: one sandbox kept across `completion()` calls until `close()`. */
  session(): RLMSession;
  /**
   * Continues an interrupted run (same `runId`) from its latest checkpoint in `runStore`, over
   * the same `context`: earlier blocks re-run with recorded results, then the loop goes on live.
   * @throws RlmError `executor.no_checkpoint`, `executor.replay_divergence` (another context)
   */
  resume(
    runId: string,
    options: {
      context: JsonValue;
      /** The run's payloads after the first, as given to `completion()`. */
      contexts?: readonly JsonValue[] | undefined;
      signal?: AbortSignal | undefined;
    },
  ): Promise<RLMChatCompletion>;
}

/** Internal hooks shared by `createRLM` and `replay`. */
export interface RunHooks {
  respond?: ModelResponder;
  listener?: RunEventHandler;
  rootRunId?: string;
}

/**
 * The tree's trajectory recorder, if it has one. A run that goes on after a stop (resumed from a
 * checkpoint, or run again from its first turn) continues its trajectory: a JSONL file is cut
 * after the last checkpointed turn (or kept whole) and appended to, and no second header is
 * written, to a file or to a sink given by the caller. Anything else starts a new one.
 */
function openRecorder(
  config: ResolvedRLMConfig,
  {
    rootRunId,
    now,
    resume,
    rerun,
  }: { rootRunId: string; now: () => number; resume: CheckpointData | undefined; rerun: boolean },
): TrajectoryRecorder | null {
  const trajectory = config.trajectory;
  if (trajectory === undefined) return null;
  const continuing = resume !== undefined || rerun;
  let sink: TrajectorySink;
  let fresh: boolean;
  if ('dir' in trajectory) {
    const continueAt = continuing ? (resume?.trajectoryBytes ?? 'end') : undefined;
    const file = jsonlFileSink(trajectory.dir, rootRunId, { continueAt });
    fresh = !file.continued;
    sink = file;
  } else {
    fresh = !continuing;
    sink = trajectory;
  }
  const recorder = new TrajectoryRecorder(sink);
  if (fresh) {
    recorder.header({ runId: rootRunId, createdAt: now(), config: trajectoryConfig(config) });
  }
  return recorder;
}

/** Marks the root's run record as running; a record made beforehand (a queued server run) is reused. */
async function openRunRecord(
  store: RunStore,
  { rootRunId, config }: { rootRunId: string; config: ResolvedRLMConfig },
): Promise<void> {
  if ((await store.getRun(rootRunId)) === undefined) {
    await store.createRun({ id: rootRunId, config: trajectoryConfig(config) });
  } else {
    await store.updateRun(rootRunId, { status: 'running' });
  }
}

/** Runs one tree: builds its shared state, runs the root, closes the trajectory. */
export async function runTree(
  config: ResolvedRLMConfig,
  {
    context,
    options = {},
    hooks = {},
    session,
    resume,
  }: {
    context: JsonValue;
    options?: CompletionOptions;
    hooks?: RunHooks;
    session?: SessionBinding;
    resume?: CheckpointData;
  },
): Promise<RLMChatCompletion> {
  options.signal?.throwIfAborted();
  // Bad input is the caller's error: reject before anything starts (nothing is written).
  queryMetadata(context);
  const contexts = options.contexts ?? [];
  for (const extra of contexts) queryMetadata(extra);
  if (session !== undefined && contexts.length > 0) {
    throw new RlmError({
      code: 'config.invalid',
      message: 'A session run takes one payload: `contexts` is not supported in sessions',
      details: { source: 'options', issues: ['contexts: expected none in a session run'] },
    });
  }
  if (session !== undefined && options.rerun === true) {
    throw new RlmError({
      code: 'config.invalid',
      message: 'A session run cannot be a rerun: each session run is a new run',
      details: { source: 'options', issues: ['rerun: expected none in a session run'] },
    });
  }
  const now = config.now ?? Date.now;
  const rootRunId = hooks.rootRunId ?? (config.generateId ?? randomUUID)();
  const recorder = openRecorder(config, {
    rootRunId,
    now,
    resume,
    rerun: options.rerun === true,
  });
  const tree: RunTree = {
    config,
    rootRunId,
    now,
    bus: new EventBus([config.onEvent, hooks.listener]),
    recorder,
    respond: hooks.respond ?? liveResponder,
  };
  const { maxTokens, maxCostUsd, maxSubcalls, maxWallTimeMs } = config.budget;
  const store = config.runStore;
  try {
    if (store !== undefined) await openRunRecord(store, { rootRunId, config });
    const result = await runInvocation(tree, {
      runId: rootRunId,
      parentRunId: null,
      depth: 0,
      context,
      ...(contexts.length === 0 ? {} : { contexts }),
      query: options.query,
      model: config.model,
      systemPrompt: rootSystemPrompt(config),
      maxIterations: iterationsFor(config, 0),
      limits: { maxTokens, maxCostUsd, maxSubcalls },
      deadlineAt: maxWallTimeMs === undefined ? undefined : now() + maxWallTimeMs,
      signal: options.signal,
      session,
      resume,
      rerun: options.rerun === true,
    });
    await store
      ?.updateRun(rootRunId, { status: result.status, usage: result.usage })
      .catch(() => undefined);
    return result;
  } finally {
    await recorder?.close().catch(() => undefined);
  }
}

/**
 * Continues a run from its latest checkpoint in `config.runStore`: the recorded blocks run again
 * with recorded host-call results (no model calls), then the loop goes on live.
 *
 * @throws RlmError `executor.no_checkpoint` without a run store or checkpoint;
 * `executor.replay_divergence` when `context` is not the run's context
 */
export async function resumeTree(
  config: ResolvedRLMConfig,
  {
    runId,
    context,
    contexts,
    signal,
  }: {
    runId: string;
    context: JsonValue;
    contexts?: readonly JsonValue[] | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<RLMChatCompletion> {
  const data = await loadResumePoint(config.runStore, { runId, context, contexts });
  return runTree(config, {
    context,
    options: { query: data.query ?? undefined, contexts, signal },
    hooks: { rootRunId: runId },
    resume: data,
  });
}

/** Streams one tree's events; `return()` (a `break`) cancels the run and waits for it to wind down. */
export function streamTree(
  config: ResolvedRLMConfig,
  {
    context,
    options = {},
    hooks = {},
  }: { context: JsonValue; options?: CompletionOptions; hooks?: RunHooks },
): AsyncIterable<RunEvent> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<RunEvent> {
      const queue = new EventQueue<RunEvent>();
      const controller = new AbortController();
      const signal =
        options.signal === undefined
          ? controller.signal
          : AbortSignal.any([options.signal, controller.signal]);
      const run = runTree(config, {
        context,
        options: { ...options, signal },
        hooks: {
          ...hooks,
          listener: (event) => {
            queue.push(event);
            return hooks.listener?.(event);
          },
        },
      }).finally(() => queue.close());
      let failure: unknown;
      run.catch((error: unknown) => {
        failure = error;
      });
      return {
        async next() {
          const item = await queue.next();
          if (item.done && failure !== undefined) throw failure;
          return item;
        },
        async return() {
          controller.abort(
            new RlmError({
              code: 'executor.cancelled',
              message: 'The stream was closed',
              details: {},
            }),
          );
          await run.catch(() => undefined);
          return { value: undefined, done: true };
        },
      };
    },
  };
}

/**
 * Creates a Recursive Language Model: the root model works through a JavaScript REPL holding the
 * context, calls sub-models and child RLMs from code, and ends with `FINAL(...)`.
 *
 * @throws RlmError `config.invalid` naming each bad field
 * @example
 * const rlm = createRLM({ model: anthropic({ model: 'claude-sonnet-4-5' }) });
 * const result = await rlm.completion(bigText, { query: 'Who signed the contract?' });
 */
export function createRLM(config: RLMConfig): RLM {
  const resolved = parseRLMConfig(config);
  return {
    config: resolved,
    completion: (context, options) => runTree(resolved, { context, options }),
    stream: (context, options) => streamTree(resolved, { context, options }),
    resume: (runId, { context, contexts, signal }) =>
      resumeTree(resolved, { runId, context, contexts, signal }),
    session: () =>
      createSession(resolved, ({ payload, options, binding }) =>
        runTree(resolved, { context: payload, options, session: binding }),
      ),
  };
}
