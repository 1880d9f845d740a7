import type { SqlDriver } from './sql-driver.js';

/** The tables that hold one agent's rows (conversation exchanges cascade from their sender). */
const AGENT_TABLES = [
  'scratchpad',
  'conversation_senders',
  'prompt_layers',
  'prompt_layer_proposals',
  'memory_items',
];

/**
 * Deletes every row of one agent in one transaction, holding the locks each of its stores
 * writes under, so no write of that agent interleaves with the deletion in any process.
 */
export async function deleteSqlAgent(driver: SqlDriver, agentId: string): Promise<void> {
  await driver.transaction(
    async (tx) => {
      for (const table of AGENT_TABLES) {
        await tx.run(`DELETE FROM ${table} WHERE agent_id = ?`, [agentId]);
      }
    },
    {
      lock: ['scratchpad', 'conversations', 'prompt-layers', 'working-memory'].map(
        (store) => `${store}:${agentId}`,
      ),
    },
  );
}
