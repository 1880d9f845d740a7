import { z } from 'zod';

/** How many items one agent's working memory keeps before dropping the oldest. */
export const DEFAULT_WORKING_MEMORY_MAX_ITEMS = 5000;

/** `fact` (semantic), `observation` (something seen this session), `episode` (what happened). */
export const memoryKindSchema = z.enum(['fact', 'observation', 'episode']);
export type MemoryKind = z.infer<typeof memoryKindSchema>;

/** What a caller adds. `source` says where it came from (a tool, a sender, a run id…). */
export const memoryItemInputSchema = z.object({
  kind: memoryKindSchema,
  content: z.string().min(1),
  tags: z.array(z.string()).default([]),
  source: z.string().min(1),
  /** Epoch milliseconds; defaults to the store's clock. */
  at: z.number().optional(),
});
export type MemoryItemInput = z.input<typeof memoryItemInputSchema>;

/** A stored item. `id` is assigned by the store and increases with insertion order. */
export const memoryItemSchema = z.object({
  id: z.string(),
  kind: memoryKindSchema,
  content: z.string(),
  tags: z.array(z.string()),
  source: z.string(),
  at: z.number(),
});
export type MemoryItem = z.infer<typeof memoryItemSchema>;

/**
 * Where a retrieved item came from, ready to print beside it in executor sections
 * (`label` is e.g. `working-memory/fact#12 from tool:search`).
 */
export interface MemoryProvenance {
  store: 'working-memory';
  itemId: string;
  kind: MemoryKind;
  source: string;
  at: number;
  label: string;
}

/** A retrieved item with why it was chosen. */
export interface RetrievedMemory extends MemoryItem {
  provenance: MemoryProvenance;
  /** `relevant` when it matched the query, `recent` when it filled the budget by recency. */
  reason: 'relevant' | 'recent';
  /** BM25 score against the query (0 for items chosen by recency). */
  score: number;
}

/** What to retrieve; items are packed greedily until `budgetChars` of content is used. */
export interface RetrieveOptions {
  /** Keywords; when absent or matching nothing, the most recent items are returned. */
  query?: string;
  /** Maximum total `content` length of the returned items. */
  budgetChars: number;
  kinds?: readonly MemoryKind[];
  /** Only items carrying every one of these tags. */
  tags?: readonly string[];
  /** Fill budget left after relevant items with recent ones. @default true */
  fillWithRecent?: boolean;
}

/** What `retrieve` returns: chosen items in rank order, and how many candidates did not fit. */
export interface RetrieveResult {
  items: RetrievedMemory[];
  usedChars: number;
  /** Candidates (matching the filters) left out, for "n more not shown" notes. */
  omitted: number;
}

/** Filters for `WorkingMemory.list`. */
export interface MemoryListOptions {
  kinds?: readonly MemoryKind[];
  tags?: readonly string[];
  /** Newest items first; at most this many. */
  limit?: number;
}

/**
 * Facts, observations and episodes an agent accumulates, retrieved by keyword relevance (BM25,
 * computed in process over the stored items) and recency within a character budget.
 */
export interface WorkingMemory {
  /**
   * Stores an item; beyond `maxItems` the oldest item is dropped.
   * @throws RlmError `protocol.invalid_message` for a malformed item
   */
  add(item: MemoryItemInput): Promise<MemoryItem>;
  /** Items matching the filters, newest first. */
  list(options?: MemoryListOptions): Promise<MemoryItem[]>;
  /** Removes one item; resolves `true` when it existed. */
  remove(id: string): Promise<boolean>;
  /** The best items for a prompt within a character budget. */
  retrieve(options: RetrieveOptions): Promise<RetrieveResult>;
}
