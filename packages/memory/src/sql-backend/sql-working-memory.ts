import { z } from 'zod';
import type { BackendContext } from '../backend-context.js';
import { matchesMemoryFilter } from '../matches-memory-filter.js';
import { parseInput } from '../parse-input.js';
import { selectMemories } from '../select-memories.js';
import {
  type MemoryItem,
  type MemoryItemInput,
  type MemoryKind,
  type MemoryListOptions,
  memoryItemInputSchema,
  type RetrieveOptions,
  type RetrieveResult,
  type WorkingMemory,
} from '../working-memory.js';
import { readJsonColumn } from './read-json-column.js';
import type { SqlDriver } from './sql-driver.js';

interface Row {
  id: number;
  kind: MemoryKind;
  content: string;
  tags: string;
  source: string;
  at: number;
}

const COLUMNS = 'id, kind, content, tags, source, at';
const tagsSchema = z.array(z.string());

/**
 * Items as rows; ranking happens in process (`selectMemories`) over the agent's items, which
 * `maxItems` bounds, so both backends rank identically.
 */
export class SqlWorkingMemory implements WorkingMemory {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;
  readonly #agentId: string;

  constructor(driver: SqlDriver, context: BackendContext, agentId: string) {
    this.#driver = driver;
    this.#context = context;
    this.#agentId = agentId;
  }

  async add(input: MemoryItemInput): Promise<MemoryItem> {
    this.#context.assertOpen('workingMemory.add');
    const parsed = parseInput(memoryItemInputSchema, input, 'memory item');
    const agent = this.#agentId;
    const row = await this.#driver.transaction(
      async (tx) => {
        const inserted = await tx.get<Row>(
          `INSERT INTO memory_items (agent_id, kind, content, tags, source, at)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
          [
            agent,
            parsed.kind,
            parsed.content,
            JSON.stringify(parsed.tags),
            parsed.source,
            parsed.at ?? this.#context.now(),
          ],
        );
        await tx.run(
          `DELETE FROM memory_items WHERE agent_id = ? AND id <= (
           SELECT id FROM memory_items WHERE agent_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
          [agent, agent, this.#context.limits.workingMemoryItems],
        );
        return inserted as Row;
      },
      { lock: `working-memory:${agent}` },
    );
    return toItem(row);
  }

  async list(options: MemoryListOptions = {}): Promise<MemoryItem[]> {
    this.#context.assertOpen('workingMemory.list');
    const items = await this.#newestFirst(options);
    return options.limit === undefined ? items : items.slice(0, options.limit);
  }

  async remove(id: string): Promise<boolean> {
    this.#context.assertOpen('workingMemory.remove');
    // Ids are the row ids this store handed out; anything else names no item (and Postgres would
    // reject it as a bigint parameter rather than match nothing).
    if (!/^[1-9]\d{0,15}$/.test(id)) return false;
    const { changes } = await this.#driver.run(
      'DELETE FROM memory_items WHERE agent_id = ? AND id = ?',
      [this.#agentId, Number(id)],
    );
    return changes > 0;
  }

  async retrieve(options: RetrieveOptions): Promise<RetrieveResult> {
    this.#context.assertOpen('workingMemory.retrieve');
    return selectMemories(await this.#newestFirst(options), options);
  }

  async #newestFirst(filter: MemoryListOptions): Promise<MemoryItem[]> {
    const rows = await this.#driver.all<Row>(
      `SELECT ${COLUMNS} FROM memory_items WHERE agent_id = ? ORDER BY id DESC`,
      [this.#agentId],
    );
    return rows.map(toItem).filter((item) => matchesMemoryFilter(item, filter));
  }
}

function toItem(row: Row): MemoryItem {
  return {
    id: String(row.id),
    kind: row.kind,
    content: row.content,
    tags: readJsonColumn(tagsSchema, row.tags, 'memory_items.tags'),
    source: row.source,
    at: row.at,
  };
}
