import { z } from 'zod';
import { cacheHitSchema } from './language-model.js';
import { replLanguageSchema } from './repl-language.js';
import { blockErrorSchema, unawaitedCallsSchema } from './repl-result.js';
import { runStatusSchema } from './rlm-chat-completion.js';
import { tokenUsageSchema, usageSummarySchema } from './usage.js';

/** The version of the event schema; bumped on any incompatible change. */
export const RUN_EVENT_VERSION = 1;

/** Fields every event carries: which run of the tree it belongs to and when it happened. */
const base = {
  v: z.literal(RUN_EVENT_VERSION),
  runId: z.string(),
  parentRunId: z.string().nullable(),
  rootRunId: z.string(),
  depth: z.number().int().nonnegative(),
  /** Epoch milliseconds. */
  at: z.number(),
};

const errorInfo = z.object({ code: z.string(), message: z.string() });

/**
 * The OpenTelemetry ids of the invocation's span, present when a tracer records it (an SDK is
 * registered, or the run was given a tracer): find the run's trace in the tracing backend.
 */
const traceFields = {
  /** 32 lowercase hex characters. */
  traceId: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .optional(),
  /** 16 lowercase hex characters: the `invoke_agent` span of this invocation. */
  spanId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
};

/** Describes a context without copying it: type, per-chunk lengths, total and a content hash. */
export const contextInfoSchema = z.object({
  type: z.enum(['string', 'array', 'object']),
  lengths: z.array(z.number().int().nonnegative()),
  totalLength: z.number().int().nonnegative(),
  /** Short content hash, so a trajectory can name its context without storing it. */
  hash: z.string().optional(),
});
export type ContextInfo = z.infer<typeof contextInfoSchema>;

export const limitNameSchema = z.enum([
  'tokens',
  'cost',
  'wall_time',
  'subcalls',
  'iterations',
  'consecutive_errors',
  'depth',
]);
export type LimitName = z.infer<typeof limitNameSchema>;

/** Everything that happens in a run, in order; one schema for streams, SSE, storage and tests. */
export const runEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('run-start'),
    query: z.string(),
    model: z.string(),
    context: z.array(contextInfoSchema),
    maxIterations: z.number().int().positive(),
    maxDepth: z.number().int().nonnegative(),
    promptVersion: z.string(),
    ...traceFields,
    /** The run's REPL language; absent means JavaScript (runs recorded before it was kept). */
    repl: replLanguageSchema.optional(),
  }),
  /**
   * A run that stopped (a crash, a shutdown, a restart) goes on under the same id. It replaces a
   * second `run-start`, so every run has exactly one. `fromIteration` is the first turn run live
   * again: the turn after the checkpoint, or 0 when the run starts over from its first turn.
   */
  z.object({
    ...base,
    type: z.literal('run-resume'),
    fromIteration: z.number().int().nonnegative(),
    model: z.string(),
    ...traceFields,
  }),
  z.object({ ...base, type: z.literal('iteration-start'), iteration: z.number().int() }),
  z.object({
    ...base,
    type: z.literal('model-call-start'),
    callId: z.string(),
    model: z.string(),
    purpose: z.enum(['root', 'sub', 'default_answer', 'summary']),
    messageCount: z.number().int().nonnegative(),
    promptChars: z.number().int().nonnegative(),
  }),
  z.object({
    ...base,
    type: z.literal('model-call-end'),
    callId: z.string(),
    model: z.string(),
    ok: z.boolean(),
    usage: tokenUsageSchema.optional(),
    costUsd: z.number().nonnegative().optional(),
    durationMs: z.number().nonnegative(),
    stopReason: z.string().optional(),
    requestId: z.string().optional(),
    responseChars: z.number().int().nonnegative().optional(),
    error: errorInfo.optional(),
    /**
     * Set on a failed call whose `usage` was charged without a full report from the provider:
     * what it reported before the call was aborted, else the call's reserved worst case.
     */
    usageEstimated: z.boolean().optional(),
    /** The sub-call cache answered this call (it cost nothing); who paid for it, and what. */
    cache: cacheHitSchema.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('block-start'),
    iteration: z.number().int(),
    index: z.number().int().nonnegative(),
    code: z.string(),
    /**
     * The lines of the turn's response between the block's fences (1-based, inclusive). Absent
     * in trajectories written before they were recorded, and for blocks no response held (an MCP
     * session's `repl_exec`).
     */
    startLine: z.number().int().positive().optional(),
    endLine: z.number().int().positive().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('block-end'),
    iteration: z.number().int(),
    index: z.number().int().nonnegative(),
    stdout: z.string(),
    stderr: z.string(),
    executionTime: z.number().nonnegative(),
    finalAnswer: z.string().nullable(),
    error: blockErrorSchema.nullable(),
    /** Host calls the block never awaited (cancelled at its end), by function name. */
    unawaitedCalls: unawaitedCallsSchema.default({}),
  }),
  z.object({
    ...base,
    type: z.literal('subcall-start'),
    callId: z.string(),
    kind: z.enum(['llm', 'rlm']),
    model: z.string(),
    promptPreview: z.string(),
    childRunId: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('subcall-end'),
    callId: z.string(),
    kind: z.enum(['llm', 'rlm']),
    ok: z.boolean(),
    durationMs: z.number().nonnegative(),
    responsePreview: z.string(),
    childRunId: z.string().optional(),
    error: errorInfo.optional(),
  }),
  z.object({
    ...base,
    type: z.literal('iteration-end'),
    iteration: z.number().int(),
    response: z.string(),
    finalAnswer: z.string().nullable(),
    durationMs: z.number().nonnegative(),
  }),
  z.object({
    ...base,
    type: z.literal('final-answer'),
    answer: z.string(),
    source: z.enum(['code', 'text', 'default_answer', 'set_answer']),
  }),
  z.object({
    ...base,
    type: z.literal('limit-hit'),
    limit: limitNameSchema,
    used: z.number(),
    max: z.number(),
  }),
  z.object({
    ...base,
    /**
     * A child run (this run's sub-call `callId`) failed and runs again on a stronger model from
     * the escalation ladder: `errors` (turns in a row whose code failed) or `no-answer` (its turns
     * ran out without an answer). The new child's run id is `toChildRunId`.
     */
    type: z.literal('escalation'),
    callId: z.string(),
    childRunId: z.string(),
    toChildRunId: z.string(),
    fromModel: z.string(),
    toModel: z.string(),
    reason: z.enum(['errors', 'no-answer']),
    /**
     * With `errors`: the failed child's turns in a row whose code failed, the count that stopped it
     * (its `escalateAfterErrors`, or the run's `maxConsecutiveErrors` when lower). Absent with
     * `no-answer`, and in trajectories written before it was recorded.
     */
    consecutiveErrors: z.number().int().positive().optional(),
    /** 1 for the first run again; a child runs again at most once. */
    attempt: z.number().int().positive(),
  }),
  z.object({
    ...base,
    type: z.literal('task-start'),
    taskId: z.string(),
    task: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('task-end'),
    taskId: z.string(),
    ok: z.boolean(),
    summary: z.string(),
    durationMs: z.number().nonnegative(),
  }),
  z.object({
    ...base,
    type: z.literal('compaction-end'),
    iteration: z.number().int(),
    messagesBefore: z.number().int().nonnegative(),
    summaryChars: z.number().int().nonnegative(),
  }),
  z.object({ ...base, type: z.literal('error'), error: errorInfo }),
  z.object({
    ...base,
    type: z.literal('run-end'),
    status: runStatusSchema,
    answer: z.string().nullable(),
    partialAnswer: z.string().nullable(),
    usage: usageSummarySchema,
    /** Calls a budget refused in this run's tree (see `RLMChatCompletion.refusedCalls`); absent when none. */
    refusedCalls: z.number().int().positive().optional(),
    /** Times the run's REPL was reset (see `RLMChatCompletion.sandboxResets`); absent when none. */
    sandboxResets: z.number().int().positive().optional(),
    iterations: z.number().int().nonnegative(),
    durationMs: z.number().nonnegative(),
    /**
     * Why the run ended without completing (its own error, the budget it exceeded, the
     * cancellation). Absent when it completed or ended with no error (e.g. `max_iterations`), so
     * a reader never has to guess the end reason from earlier `error` events.
     */
    error: errorInfo.optional(),
  }),
]);
export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventType = RunEvent['type'];
/** The event of one `type`, e.g. `RunEventOf<'block-end'>`. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
