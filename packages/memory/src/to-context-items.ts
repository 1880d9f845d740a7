import type { Exchange } from './conversation-store.js';
import type { MemoryKind, RetrieveResult } from './working-memory.js';

/**
 * An item in the shape `buildExecutorSections` of `@rlm/prompts` takes (declared here: memory does
 * not depend on prompts; a test checks the two agree).
 */
export interface ContextItem {
  text: string;
  source: string;
  priority?: number;
}

/** Retrieved memories grouped the way `buildExecutorSections` takes them, most relevant first. */
export interface MemorySections {
  /** Facts. */
  semantic: ContextItem[];
  observations: ContextItem[];
  /** Episodes. */
  episodic: ContextItem[];
}

const SECTION_OF: Record<MemoryKind, keyof MemorySections> = {
  fact: 'semantic',
  observation: 'observations',
  episode: 'episodic',
};

/**
 * Turns a `retrieve` result into `buildExecutorSections` items, keeping rank order (its budget
 * trimming drops from the least relevant end) and using each item's provenance label as `source`.
 *
 * @example
 * const memory = await store.workingMemory.retrieve({ query: task, budgetChars: 4_000 });
 * buildExecutorSections({ role, task, ...memorySections(memory) });
 */
export function memorySections(result: RetrieveResult): MemorySections {
  const sections: MemorySections = { semantic: [], observations: [], episodic: [] };
  for (const item of result.items) {
    sections[SECTION_OF[item.kind]].push({ text: item.content, source: item.provenance.label });
  }
  return sections;
}

/**
 * Turns one sender's exchanges (oldest first, as `get`/`recent` return them) into
 * `buildExecutorSections` conversation items, one per exchange, sourced to the message.
 */
export function conversationItems(senderId: string, exchanges: readonly Exchange[]): ContextItem[] {
  return exchanges.map((exchange) => ({
    text: `${senderId}: ${exchange.senderBody}\nagent: ${exchange.agentReply}`,
    source: `conversation/${senderId}#${exchange.messageId}`,
  }));
}
