import type { BackendContext } from '../backend-context.js';
import { parseId, parseInput } from '../parse-input.js';
import {
  type Scratchpad,
  type ScratchpadEntry,
  type ScratchpadListOptions,
  type ScratchpadValue,
  scratchpadValueSchema,
} from '../scratchpad.js';

/**
 * Scratchpad kept in a Map whose insertion order is write order: a write deletes and re-inserts
 * the key, so the first key is always the least recently written one to evict.
 */
export class MemoryScratchpad implements Scratchpad {
  readonly #entries = new Map<string, ScratchpadEntry>();
  readonly #context: BackendContext;

  constructor(context: BackendContext) {
    this.#context = context;
  }

  async set(key: string, value: ScratchpadValue): Promise<ScratchpadEntry> {
    this.#context.assertOpen('scratchpad.set');
    const validKey = parseId(key, 'scratchpad key');
    const parsed = parseInput(scratchpadValueSchema, value, 'scratchpad value');
    const now = this.#context.now();
    const previous = this.#entries.get(validKey);
    const entry: ScratchpadEntry = {
      key: validKey,
      ...structuredClone(parsed),
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
    };
    this.#entries.delete(validKey);
    this.#entries.set(validKey, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#context.limits.scratchpadEntries) break;
      this.#entries.delete(oldest);
    }
    return structuredClone(entry);
  }

  async get(key: string): Promise<ScratchpadEntry | undefined> {
    this.#context.assertOpen('scratchpad.get');
    const entry = this.#entries.get(key);
    return entry === undefined ? undefined : structuredClone(entry);
  }

  async list({ prefix, type }: ScratchpadListOptions = {}): Promise<ScratchpadEntry[]> {
    this.#context.assertOpen('scratchpad.list');
    return [...this.#entries.values()]
      .filter((entry) => prefix === undefined || entry.key.startsWith(prefix))
      .filter((entry) => type === undefined || entry.type === type)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((entry) => structuredClone(entry));
  }

  async delete(key: string): Promise<boolean> {
    this.#context.assertOpen('scratchpad.delete');
    return this.#entries.delete(key);
  }
}
