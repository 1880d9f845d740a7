import type { StoreParts } from './assemble-store.js';
import { toMutableLayerId } from './check-layer-update.js';
import { notFound } from './not-found.js';
import type {
  MutableLayerId,
  PromptLayerPolicy,
  PromptLayerStore,
  PromptLayerVersion,
} from './prompt-layer-store.js';

/**
 * Puts the whole-prompt check in front of every backend's layer writes: before `update` or
 * `rollback` stores a text, the policy sees it together with the agent's other layers as they
 * are, so a write that would make the assembled prompt too large is refused before anything is
 * stored. Writes of one agent are serialized in this process, so two writes cannot each pass
 * against the old texts and together exceed the limit.
 */
export function governPromptLayers(parts: StoreParts, policy: PromptLayerPolicy): StoreParts {
  return {
    ...parts,
    openAgent(agentId) {
      const agent = parts.openAgent(agentId);
      return { ...agent, promptLayers: governed(agent.promptLayers, policy) };
    },
  };
}

function governed(inner: PromptLayerStore, policy: PromptLayerPolicy): PromptLayerStore {
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(task: () => Promise<T>): Promise<T> => {
    const next = queue.then(task, task);
    queue = next.catch(() => undefined);
    return next;
  };
  const check = async (layerId: MutableLayerId, content: string): Promise<void> => {
    const layers = Object.fromEntries(
      (await inner.current()).map((version) => [version.layerId, version.content]),
    ) as Record<MutableLayerId, string>;
    const result = policy.validate(layerId, content, { layers });
    if (!result.ok) throw result.error;
  };
  return {
    current: () => inner.current(),
    get: (layerId) => inner.get(layerId),
    history: (layerId) => inner.history(layerId),
    update: (layerId, content, options) =>
      serialized(async () => {
        const id = toMutableLayerId(layerId);
        if (typeof content === 'string') await check(id, content);
        return inner.update(layerId, content, options);
      }),
    rollback: (layerId, version, options) =>
      serialized(async (): Promise<PromptLayerVersion> => {
        const id = toMutableLayerId(layerId);
        const target = (await inner.history(id)).find((entry) => entry.version === version);
        if (target === undefined)
          throw notFound('prompt-layer-version', `${id}@${String(version)}`);
        await check(id, target.content);
        return inner.rollback(layerId, version, options);
      }),
    propose: (layerId, content, options) =>
      serialized(async () => {
        const id = toMutableLayerId(layerId);
        if (typeof content === 'string') await check(id, content);
        return inner.propose(layerId, content, options);
      }),
    proposals: (filter) => inner.proposals(filter),
    approve: (proposalId, options) =>
      serialized(async () => {
        // The whole prompt is measured as it is now: other layers may have grown since.
        const pending = await inner.proposals({ status: 'pending' });
        const proposal = pending.find((entry) => entry.id === proposalId);
        if (proposal !== undefined) await check(proposal.layerId, proposal.content);
        return inner.approve(proposalId, options);
      }),
    reject: (proposalId, options) => serialized(() => inner.reject(proposalId, options)),
  };
}
