import type { RlmError } from '@rlm/protocol';
import { z } from 'zod';

/** The layers an agent may rewrite: 6 decision loop, 7 inbound messages, 8 memory, 9 guardrails. */
export const MUTABLE_LAYER_IDS = [6, 7, 8, 9] as const;
export type MutableLayerId = (typeof MUTABLE_LAYER_IDS)[number];

/** One saved text of a mutable layer. Versions start at 1 (the seed) and only grow. */
export const promptLayerVersionSchema = z.object({
  layerId: z.literal(MUTABLE_LAYER_IDS),
  version: z.number().int().positive(),
  content: z.string(),
  /** Who wrote it: `seed`, an agent id, an operator… */
  by: z.string(),
  /** Epoch milliseconds. */
  at: z.number(),
  /** Set when this version restored an earlier one. */
  restoredFrom: z.number().int().positive().nullable(),
});
export type PromptLayerVersion = z.infer<typeof promptLayerVersionSchema>;

/** Where a proposed layer text stands: waiting for an admin, applied, or turned down. */
export const PROPOSAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/**
 * A layer text proposed by the agent itself in `proposal` mode, kept until an admin approves it
 * (it becomes the layer's next version) or rejects it. Proposals are never deleted or rewritten
 * except to record the decision.
 */
export const promptLayerProposalSchema = z.object({
  /** Increasing within the store. */
  id: z.number().int().positive(),
  layerId: z.literal(MUTABLE_LAYER_IDS),
  content: z.string(),
  /** Who proposed it (the agent's self-edit records the run and sender). */
  by: z.string(),
  /** Epoch milliseconds. */
  at: z.number(),
  status: z.enum(PROPOSAL_STATUSES),
  /** Who approved or rejected it; `null` while pending. */
  decidedBy: z.string().nullable(),
  decidedAt: z.number().nullable(),
  /** The layer version the approval created; `null` unless approved. */
  appliedVersion: z.number().int().positive().nullable(),
  /** Why it was rejected, when the admin said. */
  reason: z.string().nullable(),
});
export type PromptLayerProposal = z.infer<typeof promptLayerProposalSchema>;

/**
 * How an agent's own edits of its layers are handled: `apply` stores them at once (after the
 * policy's checks); `proposal` keeps them as pending proposals until an admin decides.
 */
export const LAYER_EDIT_MODES = ['apply', 'proposal'] as const;
export type LayerEditMode = (typeof LAYER_EDIT_MODES)[number];

/** What `approve` returns: the decided proposal and the layer version it created. */
export interface ApprovedProposal {
  proposal: PromptLayerProposal;
  version: PromptLayerVersion;
}

/** The outcome of checking a proposed layer text; `error` says which rule it broke. */
export type LayerValidationResult = { ok: true } | { ok: false; error: RlmError };

/** What a policy sees besides the proposed text: the agent's other layers as they are now. */
export interface LayerPolicyContext {
  /** The current text of every mutable layer (the proposed layer's old text included). */
  layers: Readonly<Record<MutableLayerId, string>>;
}

/**
 * Where seeds and rules for the mutable layers come from. `@rlm/prompts` provides the
 * production policy (`PROMPT_LAYER_POLICY`); it is passed in, so this package neither depends on
 * `@rlm/prompts` nor hard-codes prompt text.
 */
export interface PromptLayerPolicy {
  /** The text each mutable layer starts with, stored as version 1 on first use. */
  seeds: Readonly<Record<MutableLayerId, string>>;
  /**
   * Checks a proposed text for a layer (size caps, attempts to override layers 0–5…). Before a
   * write the store calls it with `context`, so rules about the whole prompt (its total size)
   * are checked before anything is saved.
   */
  validate(layerId: number, content: string, context?: LayerPolicyContext): LayerValidationResult;
}

/** Who is making a change, recorded with the new version. */
export interface LayerWriteOptions {
  by: string;
}

/** Who rejects a proposal, and why (shown to whoever reads the proposals). */
export interface ProposalRejectOptions extends LayerWriteOptions {
  reason?: string | undefined;
}

/**
 * Versioned storage of one agent's self-editable prompt layers (6–9). Every write validates and
 * appends a new version; nothing is overwritten, so any earlier text can be restored.
 */
export interface PromptLayerStore {
  /** The current version of each mutable layer, by id. */
  current(): Promise<PromptLayerVersion[]>;
  /**
   * The current version of one layer.
   * @throws RlmError `prompts.layer_immutable` for 0–5, `prompts.layer_invalid` for other ids
   */
  get(layerId: number): Promise<PromptLayerVersion>;
  /**
   * Validates `content` with the policy and stores it as the next version.
   * @throws RlmError `prompts.layer_immutable` for layers 0–5, `prompts.layer_invalid` for other
   * ids, or the policy's error (`prompts.layer_too_long`, `prompts.layer_override_attempt`…)
   */
  update(layerId: number, content: string, options: LayerWriteOptions): Promise<PromptLayerVersion>;
  /** Every version of a layer, oldest first. */
  history(layerId: number): Promise<PromptLayerVersion[]>;
  /**
   * Stores the text of an earlier `version` as a new version (history is never rewritten).
   * The restored text is validated again: rules may have tightened since it was written.
   * @throws RlmError `memory.not_found` when the version does not exist, plus `update`'s errors
   */
  rollback(
    layerId: number,
    version: number,
    options: LayerWriteOptions,
  ): Promise<PromptLayerVersion>;
  /**
   * Checks `content` exactly as `update` does and keeps it as a pending proposal; the layer does
   * not change until an admin calls `approve`.
   * @throws RlmError the same errors as `update`
   */
  propose(
    layerId: number,
    content: string,
    options: LayerWriteOptions,
  ): Promise<PromptLayerProposal>;
  /** Proposals of this agent, oldest first; only those with `status` when given. */
  proposals(filter?: { status?: ProposalStatus | undefined }): Promise<PromptLayerProposal[]>;
  /**
   * Applies a pending proposal as the layer's next version (checked again against the layers as
   * they are now: rules and the other layers may have changed) and marks it approved.
   * @throws RlmError `memory.not_found` when no pending proposal has this id, plus `update`'s
   *   errors (the proposal then stays pending)
   */
  approve(proposalId: number, options: LayerWriteOptions): Promise<ApprovedProposal>;
  /**
   * Marks a pending proposal rejected; the layer does not change.
   * @throws RlmError `memory.not_found` when no pending proposal has this id
   */
  reject(proposalId: number, options: ProposalRejectOptions): Promise<PromptLayerProposal>;
}
