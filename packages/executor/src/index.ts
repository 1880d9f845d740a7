/** @packageDocumentation The Recursive Language Model loop: model clients, recursion, budgets, events, trajectories, replay. */

// ── Models ──────────────────────────────

export {
  type AISDKLanguageModel,
  DEFAULT_AI_SDK_MAX_TOKENS,
  type FromAISDKOptions,
  fromAISDK,
  type LanguageModelV4Like,
} from './models/ai-sdk-model.js';
export { ANTHROPIC_EFFORTS } from './models/anthropic-efforts.js';
export {
  type AnthropicOptions,
  anthropic,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_MAX_PAUSE_CONTINUATIONS,
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_TIMEOUT_MS,
} from './models/anthropic-model.js';
export {
  ANTHROPIC_MODELS,
  ANTHROPIC_PRICES_AS_OF,
  type AnthropicModelInfo,
  anthropicModelInfo,
  DEFAULT_ANTHROPIC_CONTEXT_WINDOW,
} from './models/anthropic-models.js';
export {
  type AnthropicEffort,
  type AnthropicThinking,
  anthropicEffortSchema,
  anthropicThinkingSchema,
  type CacheTtl,
  MAX_CACHE_BREAKPOINTS,
  MIN_THINKING_BUDGET_TOKENS,
  type PromptCachingMode,
} from './models/anthropic-params.js';
export { DEFAULT_MODEL_ID } from './models/default-model-id.js';
export {
  createModelLimiter,
  DEFAULT_PROVIDER_CONCURRENCY,
  type ModelLimiter,
  type ModelLimiterOptions,
} from './models/model-limiter.js';
export {
  DEFAULT_OPENAI_CONTEXT_WINDOW,
  DEFAULT_OPENAI_MAX_TOKENS,
  type OpenAICompatibleOptions,
  openaiCompatible,
} from './models/openai-compatible-model.js';
export {
  OPENAI_MODELS,
  OPENAI_PRICES_AS_OF,
  type OpenAIModelInfo,
  openaiModelInfo,
} from './models/openai-models.js';
export {
  DEFAULT_OPENAI_BASE_URL,
  MODEL_PROVIDERS,
  OPENROUTER_BASE_URL,
  type ResolveModelOptions,
  resolveModel,
} from './models/resolve-model.js';

// ── RLM ─────────────────────────────────

// The run contract's defaults, defined once in @rlm/protocol.
export {
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_CONSECUTIVE_ERRORS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
} from '@rlm/protocol';
export {
  type BudgetConfig,
  budgetConfigSchema,
  DEFAULT_COMPACTION_FRACTION,
  DEFAULT_DISPATCH_CONCURRENCY,
  DEFAULT_MAX_BLOCKS_PER_ITERATION,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_TASK_SUMMARY_CHARS,
  DEFAULT_TASK_TIMEOUT_MS,
  type DispatchConfig,
  dispatchConfigSchema,
  type LimitsConfig,
  limitsConfigSchema,
  parseRLMConfig,
  type ResolvedRLMConfig,
  type RLMConfig,
  rlmConfigSchema,
} from './config/rlm-config.js';
export type { ToolDefinition } from './config/tool-definition.js';
export {
  type CompletionOptions,
  createRLM,
  type ResumeOptions,
  type RLM,
} from './create-rlm.js';
export { DEFAULT_CHILD_BUDGET_SHARE } from './loop/child-call.js';
export { checkResumable, type ResumeTarget } from './resume/load-resume-point.js';
export { DEFAULT_RESERVED_OUTPUT_TOKENS } from './run/call-model.js';
export type { RunEventHandler } from './run/event-bus.js';
export { createRunner } from './runner/create-runner.js';
export { findResumableRun } from './runner/find-resumable-run.js';
export { isPriced } from './runner/run-models.js';
export type {
  CreateRunnerOptions,
  ResumeInput,
  RunInput,
  Runner,
  RunnerFieldNames,
  RunnerModelOptions,
  RunnerModelResolver,
  RunToolOpener,
  RunToolSet,
} from './runner/runner-types.js';
export {
  type SettingsPrompt,
  type SettingsPromptInput,
  settingsSystemPrompt,
} from './runner/settings-system-prompt.js';
export type { RLMSession } from './session/rlm-session.js';

// ── Sub-call cache ──────────────────────

export { type CachedModelOptions, withCallCache } from './cache/cached-model.js';
export { callCacheKey } from './cache/call-cache-key.js';
export { type CallFlights, createCallFlights } from './cache/call-flights.js';
export { memoryCallCache } from './cache/memory-call-cache.js';
export type { CallCacheStores } from './cache/open-run-cache.js';

// ── Typed answers ───────────────────────

export { type OutputSchema, outputFromJsonSchema } from './output/output-spec.js';
export type { CompletionResult, TypedCompletion } from './output/typed-completion.js';

// ── Python REPLs ────────────────────────

export { type PrewarmPythonReplOptions, prewarmPythonRepl } from './python/prewarm-python-repl.js';
export { PYTHON_SANDBOX_PACKAGE } from './python/python-sandbox-package.js';

// ── Coordinator dispatch ────────────────

export { type TaskResult, taskKey, taskResultSchema } from './dispatch/task-result.js';

// ── Trajectories ────────────────────────
// Reading trajectories, their exchanges and the trace view are @rlm/trace's.

// The writer is @rlm/trace's, beside its reader; re-exported so runs' callers need one import.
export {
  DEFAULT_MAX_RECORDED_MESSAGE_CHARS,
  jsonlFileSink,
  memoryTrajectorySink,
  TrajectoryRecorder,
  type TrajectorySink,
} from '@rlm/trace';
export { contextInfo } from './trajectory/context-fingerprint.js';
export { exportRlmpaperLog } from './trajectory/export-rlmpaper-log.js';

// ── Replay ──────────────────────────────

export { type ReplayOptions, type ReplayResult, replay } from './replay/replay.js';
