/** @packageDocumentation The Recursive Language Model protocol: schemas, errors, parsers, formatters, interfaces. */

// ── Errors and logging ──────────────────

export { definedEntries } from './defined-entries.js';
export { errorInfo } from './error-info.js';
export { ERROR_KIND_BY_CODE, ERROR_KINDS, type ErrorKind, errorKind } from './error-kind.js';
export { type LogFn, type Logger, silentLogger } from './logger.js';
export { describeIssues, type ParseSchemaOptions, parseSchema } from './parse-schema.js';
export { type ErrorCode, type ErrorDetails, RlmError, type RlmErrorOptions } from './rlm-error.js';

// ── Values and usage ────────────────────

export { type JsonValue, jsonValueSchema } from './json-value.js';
export {
  type BilledTokens,
  costOfCall,
  type ModelPricing,
  modelPricingSchema,
} from './model-pricing.js';
export {
  addCallUsage,
  emptyUsage,
  type ModelUsageSummary,
  mergeUsage,
  modelUsageSummarySchema,
  type RecordCallInput,
  type TokenUsage,
  tokenUsageSchema,
  totalUsage,
  type UsageSummary,
  usageSummarySchema,
} from './usage.js';

// ── Models ──────────────────────────────

export {
  type CacheHit,
  type ChatMessage,
  cacheHitSchema,
  chatMessageSchema,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  modelRequestSchema,
  modelResponseSchema,
  type StopReason,
  stopReasonSchema,
} from './language-model.js';

// ── REPL ────────────────────────────────

export type {
  ExecuteOptions,
  GetVariableOptions,
  ReplEnvironment,
  VariableInfo,
} from './repl-environment.js';
export {
  DEFAULT_REPL_LANGUAGE,
  REPL_LANGUAGES,
  type ReplLanguage,
  replLanguageSchema,
} from './repl-language.js';
export {
  type BlockError,
  blockErrorSchema,
  type CodeBlock,
  codeBlockSchema,
  type REPLResult,
  replResultSchema,
  type SubCallRecord,
  subCallRecordSchema,
  type UnawaitedCalls,
  unawaitedCallsSchema,
} from './repl-result.js';
export { isReservedName, RESERVED_NAMES } from './reserved-names.js';

// ── Runs, events and trajectories ───────

export { capRunEvent, MAX_RUN_EVENT_CHARS } from './cap-run-event.js';
export {
  type RLMChatCompletion,
  type RunStatus,
  rlmChatCompletionSchema,
  runStatusSchema,
} from './rlm-chat-completion.js';
export { type RLMIteration, rlmIterationSchema } from './rlm-iteration.js';
export {
  type ContextInfo,
  contextInfoSchema,
  type LimitName,
  limitNameSchema,
  RUN_EVENT_VERSION,
  type RunEvent,
  type RunEventOf,
  type RunEventType,
  runEventSchema,
} from './run-event.js';
export {
  TRAJECTORY_VERSION,
  type TrajectoryRecord,
  trajectoryRecordSchema,
} from './trajectory-record.js';

// ── The run contract ────────────────────

export {
  applyCallerChoices,
  type CallerChoices,
  type CallerPolicy,
  callerChoicesSchema,
  lowerLimits,
} from './caller-choices.js';
export {
  ANTHROPIC_EFFORTS,
  DEFAULT_BLOCK_TIMEOUT_MS,
  DEFAULT_CAPTURE_CHARS,
  DEFAULT_CPU_SLICE_MS,
  DEFAULT_ESCALATE_AFTER_ERRORS,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MAX_CONSECUTIVE_ERRORS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MEMORY_BYTES,
} from './run-defaults.js';
export {
  modelIdSchema,
  RUN_LIMIT_NAMES,
  type RunCache,
  type RunCacheInput,
  type RunLimitName,
  type RunLimits,
  type RunMode,
  type RunSettings,
  type RunSettingsInput,
  runCacheSchema,
  runLimitsSchema,
  runModeSchema,
  runSettingsSchema,
} from './run-settings.js';
export {
  END_STATUSES,
  type EndStatus,
  isEndStatus,
  isResumableStatus,
  RESUMABLE_STATUSES,
  type ResumableStatus,
} from './run-status-lists.js';

// ── Parsing model output ────────────────

export { codeFencePattern } from './code-fence-pattern.js';
export { dedentBlock } from './dedent-block.js';
export {
  type CodeBlockSpan,
  DEFAULT_CODE_LANGUAGES,
  type FindCodeBlocksOptions,
  findCodeBlockSpans,
  findCodeBlocks,
} from './find-code-blocks.js';
export {
  type FinalAnswer,
  type FinalMarker,
  findFinalAnswer,
  parseFinalMarker,
  type ResolveVariable,
} from './find-final-answer.js';

// ── Building what the model sees ────────

export { type BuildUserPromptInput, buildUserPrompt } from './build-user-prompt.js';
export { formatExecutionResult, unawaitedCallsNote } from './format-execution-result.js';
export { type FormatIterationOptions, formatIteration } from './format-iteration.js';
export {
  buildMetadataMessage,
  METADATA_MAX_LISTED_CHUNKS,
  type QueryMetadata,
  queryMetadata,
} from './query-metadata.js';
export { DEFAULT_MAX_OUTPUT_CHARS, truncateOutput, truncationMarker } from './truncate-output.js';
