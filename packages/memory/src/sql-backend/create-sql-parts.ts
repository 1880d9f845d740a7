import type { StoreParts } from '../assemble-store.js';
import type { BackendContext } from '../backend-context.js';
import { deleteSqlAgent } from './delete-sql-agent.js';
import { SqlCallCache } from './sql-call-cache.js';
import { SqlConversationStore } from './sql-conversation-store.js';
import type { SqlDriver } from './sql-driver.js';
import { SqlPromptLayerStore } from './sql-prompt-layer-store.js';
import { SqlRunStore } from './sql-run-store.js';
import { SqlScratchpad } from './sql-scratchpad.js';
import { SqlWorkingMemory } from './sql-working-memory.js';

/** The SQL backend's stores over one open driver (SQLite or Postgres). */
export function createSqlParts(
  kind: 'sqlite' | 'postgres',
  driver: SqlDriver,
  context: BackendContext,
): StoreParts {
  return {
    kind,
    runs: new SqlRunStore(driver, context),
    callCache: new SqlCallCache(driver, context),
    openAgent: (agentId) => ({
      agentId,
      scratchpad: new SqlScratchpad(driver, context, agentId),
      conversations: new SqlConversationStore(driver, context, agentId),
      promptLayers: new SqlPromptLayerStore(driver, context, agentId),
      workingMemory: new SqlWorkingMemory(driver, context, agentId),
    }),
    deleteAgent: (agentId) => deleteSqlAgent(driver, agentId),
    close: () => driver.close(),
  };
}
