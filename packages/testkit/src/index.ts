/** @packageDocumentation Test doubles for @rlm: scripted and replay models, fake Anthropic and OpenAI servers, policies. */

// ── Models ──────────────────────────────

export {
  type ReplayExchange,
  type ReplayModel,
  type ReplayModelOptions,
  replayModel,
} from './replay-model.js';
export {
  DEFAULT_SCRIPTED_MODEL_ID,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedResponse,
  type ScriptedStep,
  type ScriptedStepValue,
  type ScriptFunction,
  scriptedModel,
} from './scripted-model.js';

// ── Fake servers ────────────────────────

export {
  DEFAULT_FAKE_ANTHROPIC_MODELS,
  type FakeAnthropicModel,
} from './fake-servers/anthropic-models.js';
export {
  CACHE_LOOKBACK_BLOCKS,
  type CacheAccount,
  type CacheBlock,
  createPromptCache,
  type PromptCache,
} from './fake-servers/anthropic-prompt-cache.js';
export {
  ANTHROPIC_VERSION_2023,
  ANTHROPIC_VERSION_2026,
  type AnthropicValidation,
  MAX_CACHE_BREAKPOINTS,
  validateAnthropicRequest,
} from './fake-servers/anthropic-validate.js';
export {
  anthropicErrorBody,
  type FakeAnthropicOptions,
  type FakeAnthropicServer,
  startFakeAnthropic,
} from './fake-servers/fake-anthropic.js';
export type { FakeRequestRecord } from './fake-servers/fake-http-server.js';
export {
  type FakeOpenAIOptions,
  type FakeOpenAIServer,
  startFakeOpenAI,
} from './fake-servers/fake-openai.js';
export type {
  FakeModelRequest,
  FakeReply,
  FakeReplyFunction,
  FakeReplyValue,
  FakeScript,
  FakeStreamFaults,
} from './fake-servers/fake-reply.js';
export {
  type OpenAIErrorBodyInput,
  type OpenAIErrorKind,
  type OpenAIFlavor,
  openAIErrorBody,
} from './fake-servers/openai-error-body.js';
export {
  createPrefixCache,
  OPENAI_CACHE_INCREMENT_TOKENS,
  OPENAI_CACHE_MIN_TOKENS,
  OPENAI_CACHE_TTL_MS,
  type PrefixCache,
} from './fake-servers/openai-prefix-cache.js';
export {
  DEFAULT_FAKE_OPENAI_CONTEXT_WINDOW,
  type OpenAIValidation,
  type OpenAIValidationOptions,
  validateOpenAIRequest,
} from './fake-servers/openai-validate.js';
export { type RequestRecorder, startRequestRecorder } from './fake-servers/request-recorder.js';

// ── Policies ────────────────────────────

export {
  type ExtraOfflinePolicies,
  findOfflinePolicyName,
  isOfflineModelId,
  OFFLINE_MODEL_PREFIX,
  OFFLINE_POLICIES,
  type OfflineModelOptions,
  type OfflinePolicyName,
  type OfflinePolicyOptions,
  offlineModel,
  unknownOfflinePolicy,
  withOfflineModels,
} from './offline-models.js';
export {
  type ChunkAndAggregateOptions,
  chunkAndAggregate,
} from './policies/chunk-and-aggregate.js';
export {
  contextStringsCode,
  pythonContextStringsCode,
} from './policies/context-strings-code.js';
export { type DelegateToChildOptions, delegateToChild } from './policies/delegate-to-child.js';
export {
  DEFAULT_NEEDLE_PATTERN,
  type NeedleFinderOptions,
  needleFinder,
} from './policies/needle-finder.js';
export { policies } from './policies/policies.js';
export {
  EXPLORE_REPLY,
  lastUserText,
  loopReply,
  type Policy,
  type PolicyLanguageOptions,
  type PolicyRequest,
  PYTHON_EXPLORE_REPLY,
  replBlock,
  subCallBody,
  subCallTag,
  turnIndex,
} from './policies/policy.js';

// ── Synthetic tasks ─────────────────────

export {
  DEFAULT_LABEL_KEYWORDS,
  type LabelledRecord,
  type LabelledRecordsOptions,
  type LabelledRecordsTask,
  labelledRecords,
} from './tasks/labelled-records.js';
export {
  type NeedleHaystackOptions,
  type NeedleTask,
  needleHaystack,
} from './tasks/needle-haystack.js';
export { type SeededRandom, seededRandom } from './tasks/seeded-random.js';

// ── Door parity ─────────────────────────

export { DOOR_PARITY_CASES, type DoorParityCase } from './door-parity-cases.js';

// ── Helpers ─────────────────────────────

export { estimateTokens } from './estimate-tokens.js';
export { sleep } from './sleep.js';

// ── Real services for tests ─────────────

export {
  type RunningPostgres,
  type StartPostgresOptions,
  startPostgres,
} from './postgres/start-postgres.js';
