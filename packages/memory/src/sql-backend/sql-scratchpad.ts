import { jsonValueSchema } from '@rlm/protocol';
import type { BackendContext } from '../backend-context.js';
import { parseId, parseInput } from '../parse-input.js';
import {
  type Scratchpad,
  type ScratchpadEntry,
  type ScratchpadListOptions,
  type ScratchpadValue,
  scratchpadValueSchema,
} from '../scratchpad.js';
import { readJsonColumn } from './read-json-column.js';
import type { SqlDriver } from './sql-driver.js';

interface Row {
  key: string;
  type: string;
  summary: string;
  raw: string;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'key, type, summary, raw, created_at, updated_at';

/** Scratchpad rows per agent; `write_seq` orders writes so eviction drops the oldest write. */
export class SqlScratchpad implements Scratchpad {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;
  readonly #agentId: string;

  constructor(driver: SqlDriver, context: BackendContext, agentId: string) {
    this.#driver = driver;
    this.#context = context;
    this.#agentId = agentId;
  }

  async set(key: string, value: ScratchpadValue): Promise<ScratchpadEntry> {
    this.#context.assertOpen('scratchpad.set');
    const validKey = parseId(key, 'scratchpad key');
    const parsed = parseInput(scratchpadValueSchema, value, 'scratchpad value');
    const now = this.#context.now();
    const agent = this.#agentId;
    return this.#driver.transaction(
      async (tx) => {
        const row = await tx.get<Row>(
          `INSERT INTO scratchpad (agent_id, key, type, summary, raw, created_at, updated_at, write_seq)
         VALUES (?, ?, ?, ?, ?, ?, ?,
           (SELECT COALESCE(MAX(write_seq), 0) + 1 FROM scratchpad WHERE agent_id = ?))
         ON CONFLICT (agent_id, key) DO UPDATE SET type = excluded.type,
           summary = excluded.summary, raw = excluded.raw, updated_at = excluded.updated_at,
           write_seq = excluded.write_seq
         RETURNING ${COLUMNS}`,
          [
            agent,
            validKey,
            parsed.type,
            parsed.summary,
            JSON.stringify(parsed.raw),
            now,
            now,
            agent,
          ],
        );
        await tx.run(
          `DELETE FROM scratchpad WHERE agent_id = ? AND write_seq <= (
           SELECT write_seq FROM scratchpad WHERE agent_id = ?
           ORDER BY write_seq DESC LIMIT 1 OFFSET ?)`,
          [agent, agent, this.#context.limits.scratchpadEntries],
        );
        return toEntry(row as Row);
      },
      { lock: `scratchpad:${agent}` },
    );
  }

  async get(key: string): Promise<ScratchpadEntry | undefined> {
    this.#context.assertOpen('scratchpad.get');
    const row = await this.#driver.get<Row>(
      `SELECT ${COLUMNS} FROM scratchpad WHERE agent_id = ? AND key = ?`,
      [this.#agentId, key],
    );
    return row === undefined ? undefined : toEntry(row);
  }

  async list({ prefix, type }: ScratchpadListOptions = {}): Promise<ScratchpadEntry[]> {
    this.#context.assertOpen('scratchpad.list');
    const rows = await this.#driver.all<Row>(
      `SELECT ${COLUMNS} FROM scratchpad WHERE agent_id = ?
         AND (CAST(? AS TEXT) IS NULL OR type = ?)
         AND (CAST(? AS TEXT) IS NULL OR substr(key, 1, length(?)) = ?)`,
      [this.#agentId, type ?? null, type ?? null, prefix ?? null, prefix ?? null, prefix ?? null],
    );
    // Sorted here rather than by SQL: JavaScript's code-unit order is the contract both backends share.
    return rows
      .map(toEntry)
      .filter((entry) => prefix === undefined || entry.key.startsWith(prefix))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(key: string): Promise<boolean> {
    this.#context.assertOpen('scratchpad.delete');
    const { changes } = await this.#driver.run(
      'DELETE FROM scratchpad WHERE agent_id = ? AND key = ?',
      [this.#agentId, key],
    );
    return changes > 0;
  }
}

function toEntry(row: Row): ScratchpadEntry {
  return {
    key: row.key,
    type: row.type,
    summary: row.summary,
    raw: readJsonColumn(jsonValueSchema, row.raw, 'scratchpad.raw'),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
