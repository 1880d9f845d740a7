/** @packageDocumentation Scratchpad, conversations, prompt layers, working memory and runs, in memory, SQLite or Postgres. */

// ── Opening a store ─────────────────────

export { createStore } from './create-store.js';
export {
  POSTGRES_SCHEMA_VERSION,
  RUN_EVENTS_CHANNEL,
} from './postgres-backend/postgres-migrations.js';
export { SQLITE_SCHEMA_VERSION } from './sql-backend/sqlite-migrations.js';
export { type AgentMemory, DEFAULT_AGENT_ID, type Store } from './store.js';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_POSTGRES_POOL_SIZE,
  type StoreLimits,
  type StoreOptions,
  storeOptionsSchema,
} from './store-options.js';

// ── Scratchpad ──────────────────────────

export {
  DEFAULT_SCRATCHPAD_MAX_ENTRIES,
  type Scratchpad,
  type ScratchpadEntry,
  type ScratchpadListOptions,
  type ScratchpadValue,
  scratchpadEntrySchema,
  scratchpadValueSchema,
} from './scratchpad.js';

// ── Conversations ───────────────────────

export {
  type ConversationStore,
  DEFAULT_MAX_EXCHANGE_CHARS,
  DEFAULT_MAX_EXCHANGES_PER_SENDER,
  DEFAULT_MAX_SENDERS,
  type Exchange,
  type ExchangeInput,
  exchangeInputSchema,
  exchangeSchema,
  type SenderSummary,
} from './conversation-store.js';
export { normalizeSenderId } from './normalize-sender-id.js';
export { truncateText } from './truncate-text.js';

// ── Prompt layers ───────────────────────

export {
  type ApprovedProposal,
  LAYER_EDIT_MODES,
  type LayerEditMode,
  type LayerPolicyContext,
  type LayerValidationResult,
  type LayerWriteOptions,
  MUTABLE_LAYER_IDS,
  type MutableLayerId,
  PROPOSAL_STATUSES,
  type PromptLayerPolicy,
  type PromptLayerProposal,
  type PromptLayerStore,
  type PromptLayerVersion,
  type ProposalRejectOptions,
  type ProposalStatus,
  promptLayerProposalSchema,
  promptLayerVersionSchema,
} from './prompt-layer-store.js';
export { MAX_REJECTION_REASON_CHARS } from './proposal-input.js';
export { type SelfEdit, type SelfEditOutcome, selfEditLayer } from './self-edit-layer.js';

// ── Working memory ──────────────────────

export { bm25Scores, tokenize } from './bm25-scores.js';
export {
  conversationItems,
  type MemorySections,
  memorySections,
} from './to-context-items.js';
export {
  DEFAULT_WORKING_MEMORY_MAX_ITEMS,
  type MemoryItem,
  type MemoryItemInput,
  type MemoryKind,
  type MemoryListOptions,
  type MemoryProvenance,
  memoryItemInputSchema,
  memoryItemSchema,
  memoryKindSchema,
  type RetrievedMemory,
  type RetrieveOptions,
  type RetrieveResult,
  type WorkingMemory,
} from './working-memory.js';

// ── Sub-call cache ──────────────────────

export type {
  CachedCall,
  CachedCallInput,
  CallCacheGetOptions,
  CallCacheStats,
  CallCacheStore,
} from './call-cache-store.js';

// ── Runs ────────────────────────────────

export {
  type ClaimRunOptions,
  type CreateRunOptions,
  claimRunOptionsSchema,
  type RunLease,
  runLeaseSchema,
  type TransactionSql,
} from './run-lease.js';
export {
  type Checkpoint,
  type CreateRunInput,
  createRunInputSchema,
  DEFAULT_RUN_PAGE_SIZE,
  type ListRunsOptions,
  MAX_RUN_PAGE_SIZE,
  type RetentionResult,
  type RunPage,
  type RunPatch,
  type RunRecord,
  type RunStore,
  runPatchSchema,
  runRecordSchema,
  type StoredRunEvent,
  type StoredRunStatus,
  storedRunStatusSchema,
} from './run-store.js';
