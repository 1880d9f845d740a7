import { RlmError } from '@rlm/protocol';
import type { CallCacheStore } from './call-cache-store.js';
import { parseId } from './parse-input.js';
import type { RunStore } from './run-store.js';
import { type AgentMemory, DEFAULT_AGENT_ID, type Store } from './store.js';

/** What a backend hands over to become a `Store`. */
export interface StoreParts {
  kind: Store['kind'];
  runs: RunStore;
  callCache: CallCacheStore;
  /** Builds the stores of one agent; called once per agent id. */
  openAgent(agentId: string): AgentMemory;
  /** Deletes the stored data of one agent (not the default one). */
  deleteAgent(agentId: string): Promise<void>;
  /** Releases the backend; called at most once. */
  close(): Promise<void>;
}

/**
 * Wraps backend parts into a `Store`: agents are opened on first use and cached, so
 * `forAgent(id)` always returns the same objects, and the default agent's stores sit on the store.
 */
export function assembleStore(parts: StoreParts): Store {
  const agents = new Map<string, AgentMemory>();
  let closed = false;
  const forAgent = (agentId: string): AgentMemory => {
    const id = parseId(agentId, 'agent id');
    let agent = agents.get(id);
    if (agent === undefined) {
      agent = parts.openAgent(id);
      agents.set(id, agent);
    }
    return agent;
  };
  const defaultAgent = forAgent(DEFAULT_AGENT_ID);
  return {
    kind: parts.kind,
    agentId: defaultAgent.agentId,
    scratchpad: defaultAgent.scratchpad,
    conversations: defaultAgent.conversations,
    promptLayers: defaultAgent.promptLayers,
    workingMemory: defaultAgent.workingMemory,
    runs: parts.runs,
    callCache: parts.callCache,
    forAgent,
    async deleteAgent(agentId) {
      const id = parseId(agentId, 'agent id');
      if (id === DEFAULT_AGENT_ID) {
        throw new RlmError({
          code: 'protocol.invalid_message',
          message: `agent id: the default agent ("${DEFAULT_AGENT_ID}") holds the store's own stores and cannot be deleted`,
          details: { issues: ['agent id: the default agent cannot be deleted'] },
        });
      }
      await parts.deleteAgent(id);
      agents.delete(id);
    },
    async close() {
      if (closed) return;
      closed = true;
      await parts.close();
    },
  };
}
