import type { BackendContext } from '../backend-context.js';
import { checkLayerUpdate, toMutableLayerId } from '../check-layer-update.js';
import { notFound } from '../not-found.js';
import { parseId } from '../parse-input.js';
import {
  type ApprovedProposal,
  type LayerWriteOptions,
  MUTABLE_LAYER_IDS,
  type MutableLayerId,
  type PromptLayerProposal,
  type PromptLayerStore,
  type PromptLayerVersion,
  type ProposalRejectOptions,
  type ProposalStatus,
} from '../prompt-layer-store.js';
import { parseProposalId, parseProposalStatus, parseRejectionReason } from '../proposal-input.js';
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

interface ProposalRow {
  id: number | string;
  layer_id: number;
  content: string;
  proposed_by: string;
  at: number;
  status: ProposalStatus;
  decided_by: string | null;
  decided_at: number | null;
  applied_version: number | null;
  reason: string | null;
}

const PROPOSAL_COLUMNS =
  'id, layer_id, content, proposed_by, at, status, decided_by, decided_at, applied_version, reason';

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

  async propose(
    layerId: number,
    content: string,
    { by }: LayerWriteOptions,
  ): Promise<PromptLayerProposal> {
    this.#context.assertOpen('promptLayers.propose');
    const id = checkLayerUpdate(this.#context.policy, layerId, content);
    const author = parseId(by, 'by');
    const row = await this.#driver.get<ProposalRow>(
      `INSERT INTO prompt_layer_proposals (agent_id, layer_id, content, proposed_by, at, status)
       VALUES (?, ?, ?, ?, ?, 'pending')
       RETURNING ${PROPOSAL_COLUMNS}`,
      [this.#agentId, id, content, author, this.#context.now()],
    );
    return toProposal(row as ProposalRow);
  }

  async proposals(filter: { status?: ProposalStatus } = {}): Promise<PromptLayerProposal[]> {
    this.#context.assertOpen('promptLayers.proposals');
    const status = parseProposalStatus(filter.status);
    const rows =
      status === undefined
        ? await this.#driver.all<ProposalRow>(
            `SELECT ${PROPOSAL_COLUMNS} FROM prompt_layer_proposals WHERE agent_id = ? ORDER BY id`,
            [this.#agentId],
          )
        : await this.#driver.all<ProposalRow>(
            `SELECT ${PROPOSAL_COLUMNS} FROM prompt_layer_proposals
             WHERE agent_id = ? AND status = ? ORDER BY id`,
            [this.#agentId, status],
          );
    return rows.map(toProposal);
  }

  async approve(proposalId: number, { by }: LayerWriteOptions): Promise<ApprovedProposal> {
    this.#context.assertOpen('promptLayers.approve');
    const id = parseProposalId(proposalId);
    const author = parseId(by, 'by');
    await this.#seed();
    return this.#driver.transaction(
      async (tx) => {
        const pending = await this.#pending(tx, id);
        checkLayerUpdate(this.#context.policy, pending.layerId, pending.content);
        const version = await this.#append(tx, pending.layerId, {
          content: pending.content,
          by: pending.by,
          restoredFrom: null,
        });
        const row = await tx.get<ProposalRow>(
          `UPDATE prompt_layer_proposals
           SET status = 'approved', decided_by = ?, decided_at = ?, applied_version = ?
           WHERE agent_id = ? AND id = ?
           RETURNING ${PROPOSAL_COLUMNS}`,
          [author, this.#context.now(), version.version, this.#agentId, id],
        );
        return { proposal: toProposal(row as ProposalRow), version };
      },
      { lock: this.#lock },
    );
  }

  async reject(
    proposalId: number,
    { by, reason }: ProposalRejectOptions,
  ): Promise<PromptLayerProposal> {
    this.#context.assertOpen('promptLayers.reject');
    const id = parseProposalId(proposalId);
    const author = parseId(by, 'by');
    const why = parseRejectionReason(reason);
    return this.#driver.transaction(
      async (tx) => {
        await this.#pending(tx, id);
        const row = await tx.get<ProposalRow>(
          `UPDATE prompt_layer_proposals
           SET status = 'rejected', decided_by = ?, decided_at = ?, reason = ?
           WHERE agent_id = ? AND id = ?
           RETURNING ${PROPOSAL_COLUMNS}`,
          [author, this.#context.now(), why, this.#agentId, id],
        );
        return toProposal(row as ProposalRow);
      },
      { lock: this.#lock },
    );
  }

  async #pending(tx: SqlExecutor, id: number): Promise<PromptLayerProposal> {
    const row = await tx.get<ProposalRow>(
      `SELECT ${PROPOSAL_COLUMNS} FROM prompt_layer_proposals
       WHERE agent_id = ? AND id = ? AND status = 'pending'`,
      [this.#agentId, id],
    );
    if (row === undefined) throw notFound('pending prompt-layer proposal', String(id));
    return toProposal(row);
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

function toProposal(row: ProposalRow): PromptLayerProposal {
  return {
    // Postgres returns BIGINT as a string.
    id: Number(row.id),
    layerId: row.layer_id as MutableLayerId,
    content: row.content,
    by: row.proposed_by,
    at: Number(row.at),
    status: row.status,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at === null ? null : Number(row.decided_at),
    appliedVersion: row.applied_version,
    reason: row.reason,
  };
}
