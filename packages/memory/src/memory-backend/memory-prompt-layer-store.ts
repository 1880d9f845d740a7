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

/** Each layer's versions in an array, oldest first; version n sits at index n - 1. */
export class MemoryPromptLayerStore implements PromptLayerStore {
  readonly #versions: Record<MutableLayerId, PromptLayerVersion[]>;
  readonly #context: BackendContext;
  readonly #proposals: PromptLayerProposal[] = [];

  constructor(context: BackendContext) {
    this.#context = context;
    const at = context.now();
    const seed = (layerId: MutableLayerId): PromptLayerVersion[] => [
      {
        layerId,
        version: 1,
        content: context.policy.seeds[layerId],
        by: 'seed',
        at,
        restoredFrom: null,
      },
    ];
    this.#versions = { 6: seed(6), 7: seed(7), 8: seed(8), 9: seed(9) };
  }

  async current(): Promise<PromptLayerVersion[]> {
    this.#context.assertOpen('promptLayers.current');
    return MUTABLE_LAYER_IDS.map((layerId) => this.#latest(layerId));
  }

  async get(layerId: number): Promise<PromptLayerVersion> {
    this.#context.assertOpen('promptLayers.get');
    return this.#latest(toMutableLayerId(layerId));
  }

  async update(
    layerId: number,
    content: string,
    { by }: LayerWriteOptions,
  ): Promise<PromptLayerVersion> {
    this.#context.assertOpen('promptLayers.update');
    const id = checkLayerUpdate(this.#context.policy, layerId, content);
    return this.#append(id, content, { by: parseId(by, 'by'), restoredFrom: null });
  }

  async history(layerId: number): Promise<PromptLayerVersion[]> {
    this.#context.assertOpen('promptLayers.history');
    return this.#list(toMutableLayerId(layerId)).map((version) => ({ ...version }));
  }

  async rollback(
    layerId: number,
    version: number,
    { by }: LayerWriteOptions,
  ): Promise<PromptLayerVersion> {
    this.#context.assertOpen('promptLayers.rollback');
    const id = toMutableLayerId(layerId);
    const target = this.#list(id).find((entry) => entry.version === version);
    if (target === undefined) {
      throw notFound('prompt-layer-version', `${id}@${String(version)}`);
    }
    checkLayerUpdate(this.#context.policy, id, target.content);
    return this.#append(id, target.content, { by: parseId(by, 'by'), restoredFrom: version });
  }

  async propose(
    layerId: number,
    content: string,
    { by }: LayerWriteOptions,
  ): Promise<PromptLayerProposal> {
    this.#context.assertOpen('promptLayers.propose');
    const id = checkLayerUpdate(this.#context.policy, layerId, content);
    const proposal: PromptLayerProposal = {
      id: this.#proposals.length + 1,
      layerId: id,
      content,
      by: parseId(by, 'by'),
      at: this.#context.now(),
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
      appliedVersion: null,
      reason: null,
    };
    this.#proposals.push(proposal);
    return { ...proposal };
  }

  async proposals(filter: { status?: ProposalStatus } = {}): Promise<PromptLayerProposal[]> {
    this.#context.assertOpen('promptLayers.proposals');
    const status = parseProposalStatus(filter.status);
    return this.#proposals
      .filter((proposal) => status === undefined || proposal.status === status)
      .map((proposal) => ({ ...proposal }));
  }

  async approve(proposalId: number, { by }: LayerWriteOptions): Promise<ApprovedProposal> {
    this.#context.assertOpen('promptLayers.approve');
    const proposal = this.#pending(proposalId);
    const author = parseId(by, 'by');
    checkLayerUpdate(this.#context.policy, proposal.layerId, proposal.content);
    const version = this.#append(proposal.layerId, proposal.content, {
      by: proposal.by,
      restoredFrom: null,
    });
    Object.assign(proposal, {
      status: 'approved',
      decidedBy: author,
      decidedAt: this.#context.now(),
      appliedVersion: version.version,
    });
    return { proposal: { ...proposal }, version };
  }

  async reject(
    proposalId: number,
    { by, reason }: ProposalRejectOptions,
  ): Promise<PromptLayerProposal> {
    this.#context.assertOpen('promptLayers.reject');
    const proposal = this.#pending(proposalId);
    Object.assign(proposal, {
      status: 'rejected',
      decidedBy: parseId(by, 'by'),
      decidedAt: this.#context.now(),
      reason: parseRejectionReason(reason),
    });
    return { ...proposal };
  }

  #pending(proposalId: number): PromptLayerProposal {
    const id = parseProposalId(proposalId);
    const proposal = this.#proposals.find((entry) => entry.id === id);
    if (proposal?.status !== 'pending') throw notFound('pending prompt-layer proposal', String(id));
    return proposal;
  }

  #list(layerId: MutableLayerId): PromptLayerVersion[] {
    return this.#versions[layerId];
  }

  #latest(layerId: MutableLayerId): PromptLayerVersion {
    const versions = this.#list(layerId);
    // The seed is version 1, so the list is never empty.
    return { ...(versions[versions.length - 1] as PromptLayerVersion) };
  }

  #append(
    layerId: MutableLayerId,
    content: string,
    { by, restoredFrom }: { by: string; restoredFrom: number | null },
  ): PromptLayerVersion {
    const versions = this.#list(layerId);
    const entry: PromptLayerVersion = {
      layerId,
      version: versions.length + 1,
      content,
      by,
      at: this.#context.now(),
      restoredFrom,
    };
    versions.push(entry);
    return { ...entry };
  }
}
