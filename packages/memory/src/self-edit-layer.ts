import type {
  LayerEditMode,
  LayerWriteOptions,
  PromptLayerProposal,
  PromptLayerStore,
  PromptLayerVersion,
} from './prompt-layer-store.js';

/** An agent's edit of one of its layers, and how edits are handled for this agent. */
export interface SelfEdit extends LayerWriteOptions {
  layerId: number;
  content: string;
  mode: LayerEditMode;
}

/** What an agent's own layer edit did: applied as a new version, or kept for an admin. */
export type SelfEditOutcome =
  | { status: 'applied'; version: PromptLayerVersion }
  | { status: 'proposed'; proposal: PromptLayerProposal };

/**
 * Routes an agent's edit of its own layer by `mode`: `apply` stores it at once (`update`),
 * `proposal` keeps it pending until an admin approves it (`propose`). Both run every check of
 * the store's policy first, so a text that would be refused is refused either way. Admin edits
 * call `update` directly and never wait.
 *
 * @throws RlmError the store's `update` errors
 * @example
 * const outcome = await selfEditLayer(memory.promptLayers, { layerId: 8, content, by, mode: 'proposal' });
 */
export async function selfEditLayer(
  store: PromptLayerStore,
  { layerId, content, by, mode }: SelfEdit,
): Promise<SelfEditOutcome> {
  if (mode === 'proposal') {
    return { status: 'proposed', proposal: await store.propose(layerId, content, { by }) };
  }
  return { status: 'applied', version: await store.update(layerId, content, { by }) };
}
