import { z } from 'zod';
import {
  DEFAULT_MAX_EXCHANGE_CHARS,
  DEFAULT_MAX_EXCHANGES_PER_SENDER,
  DEFAULT_MAX_SENDERS,
} from './conversation-store.js';
import type { PromptLayerPolicy } from './prompt-layer-store.js';
import { DEFAULT_SCRATCHPAD_MAX_ENTRIES } from './scratchpad.js';
import { DEFAULT_WORKING_MEMORY_MAX_ITEMS } from './working-memory.js';

/** How long a SQLite connection waits for another connection's write lock before failing. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
/** Connections a Postgres store keeps open at most. */
export const DEFAULT_POSTGRES_POOL_SIZE = 10;
/** How long opening a Postgres connection may take before the call fails. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

const limitsSchema = z
  .object({
    /** @default DEFAULT_SCRATCHPAD_MAX_ENTRIES */
    scratchpadEntries: z.number().int().positive().default(DEFAULT_SCRATCHPAD_MAX_ENTRIES),
    /** @default DEFAULT_MAX_EXCHANGES_PER_SENDER */
    exchangesPerSender: z.number().int().positive().default(DEFAULT_MAX_EXCHANGES_PER_SENDER),
    /** @default DEFAULT_MAX_SENDERS */
    senders: z.number().int().positive().default(DEFAULT_MAX_SENDERS),
    /** @default DEFAULT_MAX_EXCHANGE_CHARS */
    exchangeChars: z.number().int().min(2).default(DEFAULT_MAX_EXCHANGE_CHARS),
    /** @default DEFAULT_WORKING_MEMORY_MAX_ITEMS */
    workingMemoryItems: z.number().int().positive().default(DEFAULT_WORKING_MEMORY_MAX_ITEMS),
  })
  .strict()
  .prefault({});

const policySchema = z.custom<PromptLayerPolicy>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    'seeds' in value &&
    typeof value.seeds === 'object' &&
    'validate' in value &&
    typeof value.validate === 'function',
  { message: 'expected { seeds, validate } (a PromptLayerPolicy)' },
);

const common = {
  limits: limitsSchema,
  /**
   * Seeds and rules of the mutable prompt layers (`PROMPT_LAYER_POLICY` from `@rlm/prompts`).
   * Without one, layers read as empty and every write is refused with `config.invalid`.
   */
  promptLayers: policySchema.optional(),
  /** Clock in epoch milliseconds, injectable for tests. @default Date.now */
  now: z
    .custom<() => number>((value) => typeof value === 'function', {
      message: 'expected a function returning epoch milliseconds',
    })
    .optional(),
};

/**
 * Options of `createStore`: `{ kind: 'memory' }`, `{ kind: 'sqlite', path }` or
 * `{ kind: 'postgres', url }`, plus shared limits.
 */
export const storeOptionsSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory'), ...common }).strict(),
  z
    .object({
      kind: z.literal('sqlite'),
      /** A file path, or `:memory:` for a private in-memory database. */
      path: z.string().min(1),
      /** @default DEFAULT_BUSY_TIMEOUT_MS */
      busyTimeoutMs: z.number().int().nonnegative().default(DEFAULT_BUSY_TIMEOUT_MS),
      /**
       * `normal` (default) survives a killed process without losing an acknowledged write; `full`
       * also survives power loss, at a cost in write throughput.
       */
      synchronous: z.enum(['normal', 'full']).default('normal'),
      ...common,
    })
    .strict(),
  z
    .object({
      kind: z.literal('postgres'),
      /**
       * `postgres://user:password@host:port/database`; libpq parameters such as `sslmode` or
       * `options=-c search_path=…` (to keep the tables in their own schema) go in the query.
       */
      url: z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL'),
      /** @default DEFAULT_POSTGRES_POOL_SIZE */
      poolSize: z.number().int().positive().default(DEFAULT_POSTGRES_POOL_SIZE),
      /** @default DEFAULT_CONNECT_TIMEOUT_MS */
      connectTimeoutMs: z.number().int().positive().default(DEFAULT_CONNECT_TIMEOUT_MS),
      ...common,
    })
    .strict(),
]);
export type StoreOptions = z.input<typeof storeOptionsSchema>;
export type ResolvedStoreOptions = z.output<typeof storeOptionsSchema>;
export type StoreLimits = z.output<typeof limitsSchema>;
