import type { StoreParts } from '../assemble-store.js';
import type { BackendContext } from '../backend-context.js';
import { MemoryCallCache } from './memory-call-cache.js';
import { MemoryConversationStore } from './memory-conversation-store.js';
import { MemoryPromptLayerStore } from './memory-prompt-layer-store.js';
import { MemoryRunStore } from './memory-run-store.js';
import { MemoryScratchpad } from './memory-scratchpad.js';
import { MemoryWorkingMemory } from './memory-working-memory.js';

/** The in-process backend: plain Maps owned by this store, gone when the process ends. */
export function createMemoryParts(context: BackendContext, close: () => Promise<void>): StoreParts {
  return {
    kind: 'memory',
    runs: new MemoryRunStore(context),
    callCache: new MemoryCallCache(context),
    openAgent: (agentId) => ({
      agentId,
      scratchpad: new MemoryScratchpad(context),
      conversations: new MemoryConversationStore(context),
      promptLayers: new MemoryPromptLayerStore(context),
      workingMemory: new MemoryWorkingMemory(context),
    }),
    // An agent's data lives in the objects `openAgent` made: once the store forgets them, the
    // agent is gone, and the next `forAgent` starts empty.
    deleteAgent: async () => context.assertOpen('deleteAgent'),
    close,
  };
}
