import type { CallCacheStore } from './call-cache-store.js';
import type { ConversationStore } from './conversation-store.js';
import type { PromptLayerStore } from './prompt-layer-store.js';
import type { RunStore } from './run-store.js';
import type { Scratchpad } from './scratchpad.js';
import type { WorkingMemory } from './working-memory.js';

/** The namespace `Store`'s own per-agent stores use. */
export const DEFAULT_AGENT_ID = 'default';

/**
 * The stores that belong to one agent. A server hosting several agents keeps each one's
 * scratchpad, conversations, prompt layers and working memory apart by agent id.
 */
export interface AgentMemory {
  readonly agentId: string;
  readonly scratchpad: Scratchpad;
  readonly conversations: ConversationStore;
  readonly promptLayers: PromptLayerStore;
  readonly workingMemory: WorkingMemory;
}

/**
 * Everything `createStore` opens: the default agent's stores (agent id `default`), other agents
 * through `forAgent`, and the run store shared by all agents. Every method returns a Promise
 * (even on backends that finish synchronously) so a networked backend can implement the same
 * contract.
 */
export interface Store extends AgentMemory {
  readonly kind: 'memory' | 'sqlite' | 'postgres';
  readonly runs: RunStore;
  /** The sub-call cache, shared by every process on this database. */
  readonly callCache: CallCacheStore;
  /**
   * The stores of agent `agentId` (created empty on first use, prompt layers seeded).
   * @throws RlmError `protocol.invalid_message` for an empty id
   */
  forAgent(agentId: string): AgentMemory;
  /**
   * Deletes everything stored for agent `agentId` (scratchpad, conversations, every prompt-layer
   * version, working memory) in one transaction; runs are not the agent's and stay. The agent's
   * stores obtained before are stale afterwards: `forAgent(agentId)` opens it again, empty (its
   * layers seeded anew). Deleting an agent that has nothing stored does nothing.
   * @throws RlmError `protocol.invalid_message` for a blank id or the default agent
   */
  deleteAgent(agentId: string): Promise<void>;
  /** Releases the backend; later calls reject with `memory.storage_failed`. Idempotent. */
  close(): Promise<void>;
}
