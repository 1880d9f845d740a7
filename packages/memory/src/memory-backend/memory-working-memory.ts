import type { BackendContext } from '../backend-context.js';
import { matchesMemoryFilter } from '../matches-memory-filter.js';
import { parseInput } from '../parse-input.js';
import { selectMemories } from '../select-memories.js';
import {
  type MemoryItem,
  type MemoryItemInput,
  type MemoryListOptions,
  memoryItemInputSchema,
  type RetrieveOptions,
  type RetrieveResult,
  type WorkingMemory,
} from '../working-memory.js';

/** Items in insertion order in a Map keyed by id; ids count up from 1 per agent. */
export class MemoryWorkingMemory implements WorkingMemory {
  readonly #items = new Map<string, MemoryItem>();
  readonly #context: BackendContext;
  #nextId = 1;

  constructor(context: BackendContext) {
    this.#context = context;
  }

  async add(input: MemoryItemInput): Promise<MemoryItem> {
    this.#context.assertOpen('workingMemory.add');
    const parsed = parseInput(memoryItemInputSchema, input, 'memory item');
    const item: MemoryItem = {
      id: String(this.#nextId++),
      kind: parsed.kind,
      content: parsed.content,
      tags: [...parsed.tags],
      source: parsed.source,
      at: parsed.at ?? this.#context.now(),
    };
    this.#items.set(item.id, item);
    for (const oldest of this.#items.keys()) {
      if (this.#items.size <= this.#context.limits.workingMemoryItems) break;
      this.#items.delete(oldest);
    }
    return copy(item);
  }

  async list(options: MemoryListOptions = {}): Promise<MemoryItem[]> {
    this.#context.assertOpen('workingMemory.list');
    const items = this.#newestFirst(options);
    return (options.limit === undefined ? items : items.slice(0, options.limit)).map(copy);
  }

  async remove(id: string): Promise<boolean> {
    this.#context.assertOpen('workingMemory.remove');
    return this.#items.delete(id);
  }

  async retrieve(options: RetrieveOptions): Promise<RetrieveResult> {
    this.#context.assertOpen('workingMemory.retrieve');
    return selectMemories(this.#newestFirst(options).map(copy), options);
  }

  #newestFirst(filter: MemoryListOptions): MemoryItem[] {
    return [...this.#items.values()].reverse().filter((item) => matchesMemoryFilter(item, filter));
  }
}

function copy(item: MemoryItem): MemoryItem {
  return { ...item, tags: [...item.tags] };
}
