import { randomUUID } from 'node:crypto';
import { context as otelContext } from '@opentelemetry/api';
import type { RunStore } from '@rlm/memory';
import {
  DEFAULT_REPL_LANGUAGE,
  type JsonValue,
  queryMetadata,
  type ReplLanguage,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
} from '@rlm/protocol';
import { jsonlFileSink, TrajectoryRecorder, type TrajectorySink } from '@rlm/trace';
import { parseRLMConfig, type ResolvedRLMConfig, type RLMConfig } from './config/rlm-config.js';
import { runInvocation } from './loop/run-invocation.js';
import { iterationsFor, rootSystemPrompt } from './loop/system-prompts.js';
import {
  type OutputSchema,
  type OutputSpec,
  outputFromJsonSchema,
  outputSpec,
} from './output/output-spec.js';
import {
  type CompletionResult,
  type TypedCompletion,
  typedCompletion,
} from './output/typed-completion.js';
import { loadPythonSandbox } from './python/load-python-sandbox.js';
import type { CheckpointData } from './resume/checkpoint-data.js';
import { loadResumePoint } from './resume/load-resume-point.js';
import { EventBus, type RunEventHandler } from './run/event-bus.js';
import { EventQueue } from './run/event-queue.js';
import { RunTracing, tracerOf } from './run/run-tracing.js';
import { liveResponder, type ModelResponder, type RunTree } from './run/run-tree.js';
import { createSession, type RLMSession } from './session/rlm-session.js';
import type { SessionBinding } from './session/session-binding.js';
import { trajectoryConfig } from './trajectory/trajectory-config.js';

/** Options of one `completion()` or `stream()` call. */
export interface CompletionOptions<
  TOutput extends OutputSchema | undefined = OutputSchema | undefined,
> {
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
  /**
   * A zod schema the final answer must match, replacing the configured `output` for this run:
   * the prompt shows its JSON Schema, an answer that does not match is refused (the model is
   * told where and why) and the run goes on, and the result's `answer` is the parsed value.
   */
  output?: TOutput;
}

/** Options of `resume()`. */
export interface ResumeOptions<
  TOutput extends OutputSchema | undefined = OutputSchema | undefined,
> {
  context: JsonValue;
  /** The run's payloads after the first, as given to `completion()`. */
  contexts?: readonly JsonValue[] | undefined;
  signal?: AbortSignal | undefined;
  /**
   * The run's output schema; when absent, the configured one, else the one the checkpoint
   * recorded (rebuilt from its JSON Schema, so the answer is then typed `unknown`).
   */
  output?: TOutput;
}

/** A configured Recursive Language Model; `TOutput` is the configured `output` schema. */
export interface RLM<TOutput extends OutputSchema | undefined = undefined> {
  /** The validated configuration. */
  readonly config: ResolvedRLMConfig;
  /**
   * Runs the RLM over `context` to its end. Never rejects for model, code or budget failures:
   * they are a `status` (with `error` and `partialAnswer`) on the result. With an `output`
   * schema (here or in the config) the answer is the parsed value, typed by the schema.
   */
  completion<TRunOutput extends OutputSchema | undefined = TOutput>(
    context: JsonValue,
    options?: CompletionOptions<TRunOutput>,
  ): Promise<CompletionResult<TRunOutput>>;
  /** The same run as an ordered stream of events; breaking out of the loop cancels the run. */
  stream(context: JsonValue, options?: CompletionOptions): AsyncIterable<RunEvent>;
  /**
   * A persistent session: one sandbox kept across `completion()` calls until `close()`. Its
   * answers follow the configured `output`.
   */
  session(): RLMSession<TOutput>;
  /**
   * Continues an interrupted run (same `runId`) from its latest checkpoint in `runStore`, over
   * the same `context`: earlier blocks re-run with recorded results, then the loop goes on live.
   * @throws RlmError `executor.no_checkpoint`, `executor.replay_divergence` (another context)
   */
  resume<TRunOutput extends OutputSchema | undefined = TOutput>(
    runId: string,
    options: ResumeOptions<TRunOutput>,
  ): Promise<CompletionResult<TRunOutput>>;
}

/** Internal hooks shared by `createRLM` and `replay`. */
export interface RunHooks {
  respond?: ModelResponder;
  listener?: RunEventHandler;
  rootRunId?: string;
  /** The recorded JSON Schema of a replayed run's output, shown in its prompt as recorded. */
  outputJsonSchema?: Record<string, JsonValue>;
}

/** A run's output spec: this call's schema, the configured one, or the one a checkpoint recorded. */
function resolveOutput(
  config: ResolvedRLMConfig,
  {
    options,
    hooks,
    resume,
  }: { options: CompletionOptions; hooks: RunHooks; resume: CheckpointData | undefined },
): OutputSpec | undefined {
  const schema = options.output ?? config.output;
  const recorded = hooks.outputJsonSchema ?? resume?.output;
  if (schema !== undefined) return outputSpec(schema, hooks.outputJsonSchema);
  if (recorded === undefined) return undefined;
  return outputSpec(outputFromJsonSchema(recorded, { source: 'recorded output schema' }), recorded);
}

/** The configuration a trajectory header or run record keeps, with the run's output schema. */
function recordedConfig(
  config: ResolvedRLMConfig,
  { output, repl }: { output: OutputSpec | undefined; repl: ReplLanguage },
): Record<string, JsonValue> {
  const kept = trajectoryConfig(config, repl);
  return output === undefined ? kept : { ...kept, output: output.jsonSchema };
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
    output,
    repl,
    payloads,
  }: {
    rootRunId: string;
    now: () => number;
    resume: CheckpointData | undefined;
    rerun: boolean;
    output: OutputSpec | undefined;
    repl: ReplLanguage;
    /** The run's contexts, whose slices a packed trajectory refers to. */
    payloads: readonly JsonValue[];
  },
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
  const recorder = new TrajectoryRecorder(sink, { payloads });
  if (fresh) {
    recorder.header({
      runId: rootRunId,
      createdAt: now(),
      config: recordedConfig(config, { output, repl }),
      repl,
    });
  }
  return recorder;
}

/** Marks the root's run record as running; a record made beforehand (a queued server run) is reused. */
async function openRunRecord(
  store: RunStore,
  {
    rootRunId,
    config,
    output,
    repl,
  }: {
    rootRunId: string;
    config: ResolvedRLMConfig;
    output: OutputSpec | undefined;
    repl: ReplLanguage;
  },
): Promise<void> {
  if ((await store.getRun(rootRunId)) === undefined) {
    await store.createRun({ id: rootRunId, config: recordedConfig(config, { output, repl }) });
  } else {
    await store.updateRun(rootRunId, { status: 'running' });
  }
}

/**
 * The root's REPL language: the configured one, or the one a resumed run's recorded blocks were
 * written in. With Python, the optional package is loaded now, so a missing one is refused before
 * anything is written.
 *
 * @throws RlmError `config.invalid` when Python is chosen and `@rlm/sandbox-python` is missing
 */
async function rootLanguage(
  config: ResolvedRLMConfig,
  resume: CheckpointData | undefined,
): Promise<ReplLanguage> {
  const repl = resume === undefined ? config.repl : (resume.repl ?? DEFAULT_REPL_LANGUAGE);
  if (repl === 'python') await loadPythonSandbox();
  return repl;
}

/** Runs one tree: its result with the answer as text (JSON text for a typed answer). */
export async function runTree(
  config: ResolvedRLMConfig,
  input: Parameters<typeof runTreeWithOutput>[1],
): Promise<RLMChatCompletion> {
  return (await runTreeWithOutput(config, input)).result;
}

/**
 * Runs one tree: builds its shared state, runs the root, closes the trajectory. Returns the
 * output spec the run used, so callers can type its answer.
 */
async function runTreeWithOutput(
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
): Promise<{ result: RLMChatCompletion; output: OutputSpec | undefined }> {
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
  const output = resolveOutput(config, { options, hooks, resume });
  const repl = await rootLanguage(config, resume);
  const now = config.now ?? Date.now;
  const rootRunId = hooks.rootRunId ?? (config.generateId ?? randomUUID)();
  const recorder = openRecorder(config, {
    rootRunId,
    now,
    resume,
    rerun: options.rerun === true,
    output,
    repl,
    payloads: [context, ...contexts],
  });
  const tree: RunTree = {
    config,
    rootRunId,
    now,
    bus: new EventBus([config.onEvent, hooks.listener]),
    recorder,
    respond: hooks.respond ?? liveResponder,
    tracing: new RunTracing(tracerOf(config)),
  };
  const { maxTokens, maxCostUsd, maxSubcalls, maxWallTimeMs } = config.budget;
  const store = config.runStore;
  try {
    if (store !== undefined) await openRunRecord(store, { rootRunId, config, output, repl });
    const result = await runInvocation(tree, {
      runId: rootRunId,
      parentRunId: null,
      depth: 0,
      context,
      ...(contexts.length === 0 ? {} : { contexts }),
      query: options.query,
      model: config.model,
      repl,
      systemPrompt: rootSystemPrompt(config, { output, repl }),
      maxIterations: iterationsFor(config, 0),
      limits: { maxTokens, maxCostUsd, maxSubcalls },
      deadlineAt: maxWallTimeMs === undefined ? undefined : now() + maxWallTimeMs,
      signal: options.signal,
      session,
      resume,
      rerun: options.rerun === true,
      output,
      // The caller's active span (an HTTP request, a job) becomes the run span's parent.
      traceContext: otelContext.active(),
    });
    await store
      ?.updateRun(rootRunId, { status: result.status, usage: result.usage })
      .catch(() => undefined);
    return { result, output };
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
  { runId, context, contexts, signal, output }: ResumeOptions & { runId: string },
): Promise<TypedCompletion<unknown>> {
  const data = await loadResumePoint(config.runStore, { runId, context, contexts });
  const run = await runTreeWithOutput(config, {
    context,
    options: { query: data.query ?? undefined, contexts, signal, output },
    hooks: { rootRunId: runId },
    resume: data,
  });
  return typedCompletion(run.result, run.output);
}

/** `completion()`: one run, its answer typed by its output schema. */
async function typedRun(
  config: ResolvedRLMConfig,
  input: Parameters<typeof runTreeWithOutput>[1],
): Promise<TypedCompletion<unknown>> {
  const { result, output } = await runTreeWithOutput(config, input);
  return typedCompletion(result, output);
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
 * context, calls sub-models and child RLMs from code, and ends with `FINAL(...)`. With `output`
 * (a zod schema) every `completion()` answer is checked against it and typed by it.
 *
 * @throws RlmError `config.invalid` naming each bad field
 * @example
 * const rlm = createRLM({ model: anthropic({ model: 'claude-sonnet-4-5' }) });
 * const result = await rlm.completion(bigText, { query: 'Who signed the contract?' });
 * const typed = await rlm.completion(bigText, { query: 'Parties?', output: z.array(z.string()) });
 * typed.answer; // string[] | null
 */
export function createRLM<TOutput extends OutputSchema | undefined = undefined>(
  config: RLMConfig & { output?: TOutput },
): RLM<TOutput> {
  const resolved = parseRLMConfig(config);
  // The typed signatures are the schema's promise; the runtime parses every answer with it.
  return {
    config: resolved,
    completion: (context, options) => typedRun(resolved, { context, options }) as Promise<never>,
    stream: (context, options) => streamTree(resolved, { context, options }),
    resume: (runId, options) => resumeTree(resolved, { runId, ...options }) as Promise<never>,
    session: () =>
      createSession(resolved, ({ payload, options, binding }) =>
        typedRun(resolved, { context: payload, options, session: binding }),
      ) as unknown as RLMSession<TOutput>,
  };
}
