import { jsonValueSchema } from '@rlm/protocol';
import { z } from 'zod';

/** How many entries a scratchpad namespace keeps before evicting the least recently written. */
export const DEFAULT_SCRATCHPAD_MAX_ENTRIES = 1000;

/** What a caller writes under a key: a kind tag, a one-line summary and the full value. */
export const scratchpadValueSchema = z.object({
  /** Free-form kind tag, e.g. `task-result` or `note`; `list({ type })` filters on it. */
  type: z.string().min(1),
  /** Short text an agent can read without loading `raw`. */
  summary: z.string(),
  /** The full value, any JSON. */
  raw: jsonValueSchema,
});
export type ScratchpadValue = z.infer<typeof scratchpadValueSchema>;

/** A stored entry: the value plus its key and timestamps (epoch milliseconds). */
export const scratchpadEntrySchema = scratchpadValueSchema.extend({
  key: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ScratchpadEntry = z.infer<typeof scratchpadEntrySchema>;

/** Filters for `Scratchpad.list`; both are optional and combine with AND. */
export interface ScratchpadListOptions {
  /** Only keys that start with this text. */
  prefix?: string;
  /** Only entries whose `type` equals this. */
  type?: string;
}

/**
 * A shared key/value notebook for one agent (or run): the executor writes `task:<id>` results
 * here and `inspect(key)` reads them. Writing a new key when `maxEntries` are stored evicts the
 * entry written least recently. All methods are async so every backend can share the contract.
 */
export interface Scratchpad {
  /**
   * Creates or replaces `key`. Replacing keeps `createdAt` and moves the entry to the newest end.
   * @throws RlmError `protocol.invalid_message` when the key or value is malformed
   */
  set(key: string, value: ScratchpadValue): Promise<ScratchpadEntry>;
  /** The entry under `key`, or `undefined`. */
  get(key: string): Promise<ScratchpadEntry | undefined>;
  /** Entries matching the filters, sorted by key. */
  list(options?: ScratchpadListOptions): Promise<ScratchpadEntry[]>;
  /** Removes `key`; resolves `true` when it existed. */
  delete(key: string): Promise<boolean>;
}
