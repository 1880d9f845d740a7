import type { BackendContext } from '../backend-context.js';
import { checkLayerUpdate, toMutableLayerId } from '../check-layer-update.js';
import { notFound } from '../not-found.js';
import { parseId } from '../parse-input.js';
import {
  type LayerWriteOptions,
  MUTABLE_LAYER_IDS,
  type MutableLayerId,
  type PromptLayerStore,
  type PromptLayerVersion,
} from '../prompt-layer-store.js';
import type { SqlDriver, SqlExecutor } from './sql-driver.js';

interface Row {
  layer_id: number;
  version: number;
  content: string;
  written_by: string;
  at: number;
  restored_from: number | null;
}

const COLUMNS = 'layer_id, version, content, written_by, at, restored_from';

/**
 * Every version of every mutable layer is a row; the current text is the highest version.
 * Seeds are inserted as version 1 the first time an agent's layers are touched (`ON CONFLICT DO
 * NOTHING`, so two processes seeding at once agree).
 */
export class SqlPromptLayerStore implements PromptLayerStore {
  readonly #driver: SqlDriver;
  readonly #context: BackendContext;
  readonly #agentId: string;
  #seeded = false;

  get #lock(): string {
    return `prompt-layers:${this.#agentId}`;
  }

  constructor(driver: SqlDriver, context: BackendContext, agentId: string) {
    this.#driver = driver;
    this.#context = context;
    this.#agentId = agentId;
  }

  async current(): Promise<PromptLayerVersion[]> {
    this.#context.assertOpen('promptLayers.current');
    await this.#seed();
    const rows = await this.#driver.all<Row>(
      `SELECT ${COLUMNS} FROM prompt_layers p WHERE agent_id = ? AND version = (
         SELECT MAX(version) FROM prompt_layers
         WHERE agent_id = p.agent_id AND layer_id = p.layer_id)
       ORDER BY layer_id`,
      [this.#agentId],
    );
    return rows.map(toVersion);
  }

  async get(layerId: number): Promise<PromptLayerVersion> {
    this.#context.assertOpen('promptLayers.get');
    const id = toMutableLayerId(layerId);
    await this.#seed();
    const row = await latest(this.#driver, this.#agentId, id);
    return toVersion(row as Row);
  }

  async update(
    layerId: number,
    content: string,
    { by }: LayerWriteOptions,
  ): Promise<PromptLayerVersion> {
    this.#context.assertOpen('promptLayers.update');
    const id = checkLayerUpdate(this.#context.policy, layerId, content);
    const author = parseId(by, 'by');
    await this.#seed();
    return this.#driver.transaction(
      (tx) => this.#append(tx, id, { content, by: author, restoredFrom: null }),
      { lock: this.#lock },
    );
  }

  async history(layerId: number): Promise<PromptLayerVersion[]> {
    this.#context.assertOpen('promptLayers.history');
    const id = toMutableLayerId(layerId);
    await this.#seed();
    const rows = await this.#driver.all<Row>(
      `SELECT ${COLUMNS} FROM prompt_layers WHERE agent_id = ? AND layer_id = ? ORDER BY version`,
      [this.#agentId, id],
    );
    return rows.map(toVersion);
  }

  async rollback(
    layerId: number,
    version: number,
    { by }: LayerWriteOptions,
  ): Promise<PromptLayerVersion> {
    this.#context.assertOpen('promptLayers.rollback');
    const id = toMutableLayerId(layerId);
    const author = parseId(by, 'by');
    await this.#seed();
    return this.#driver.transaction(
      async (tx) => {
        const target = await tx.get<Row>(
          `SELECT ${COLUMNS} FROM prompt_layers WHERE agent_id = ? AND layer_id = ? AND version = ?`,
          [this.#agentId, id, version],
        );
        if (target === undefined)
          throw notFound('prompt-layer-version', `${id}@${String(version)}`);
        checkLayerUpdate(this.#context.policy, id, target.content);
        return this.#append(tx, id, { content: target.content, by: author, restoredFrom: version });
      },
      { lock: this.#lock },
    );
  }

  async #seed(): Promise<void> {
    if (this.#seeded) return;
    const at = this.#context.now();
    await this.#driver.transaction(
      async (tx) => {
        for (const layerId of MUTABLE_LAYER_IDS) {
          await tx.run(
            `INSERT INTO prompt_layers (agent_id, layer_id, version, content, written_by, at, restored_from)
           VALUES (?, ?, 1, ?, 'seed', ?, NULL)
           ON CONFLICT (agent_id, layer_id, version) DO NOTHING`,
            [this.#agentId, layerId, this.#context.policy.seeds[layerId], at],
          );
        }
      },
      { lock: this.#lock },
    );
    this.#seeded = true;
  }

  async #append(
    tx: SqlExecutor,
    layerId: MutableLayerId,
    { content, by, restoredFrom }: { content: string; by: string; restoredFrom: number | null },
  ): Promise<PromptLayerVersion> {
    const row = await tx.get<Row>(
      `INSERT INTO prompt_layers (agent_id, layer_id, version, content, written_by, at, restored_from)
       VALUES (?, ?, (SELECT MAX(version) + 1 FROM prompt_layers WHERE agent_id = ? AND layer_id = ?),
         ?, ?, ?, ?)
       RETURNING ${COLUMNS}`,
      [
        this.#agentId,
        layerId,
        this.#agentId,
        layerId,
        content,
        by,
        this.#context.now(),
        restoredFrom,
      ],
    );
    return toVersion(row as Row);
  }
}

function latest(
  executor: SqlExecutor,
  agentId: string,
  layerId: MutableLayerId,
): Promise<Row | undefined> {
  return executor.get<Row>(
    `SELECT ${COLUMNS} FROM prompt_layers WHERE agent_id = ? AND layer_id = ?
     ORDER BY version DESC LIMIT 1`,
    [agentId, layerId],
  );
}

function toVersion(row: Row): PromptLayerVersion {
  return {
    layerId: row.layer_id as MutableLayerId,
    version: row.version,
    content: row.content,
    by: row.written_by,
    at: row.at,
    restoredFrom: row.restored_from,
  };
}
