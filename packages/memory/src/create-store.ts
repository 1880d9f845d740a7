import { parseSchema, RlmError } from '@rlm/protocol';
import { assembleStore } from './assemble-store.js';
import type { BackendContext } from './backend-context.js';
import { governPromptLayers } from './govern-prompt-layers.js';
import { createMemoryParts } from './memory-backend/create-memory-parts.js';
import { openPostgresDriver } from './postgres-backend/open-postgres-driver.js';
import { createSqlParts } from './sql-backend/create-sql-parts.js';
import { openSqliteDriver } from './sql-backend/open-sqlite-driver.js';
import type { Store } from './store.js';
import { type StoreOptions, storeOptionsSchema } from './store-options.js';
import { UNCONFIGURED_LAYER_POLICY } from './unconfigured-layer-policy.js';

/**
 * Opens a store: `{ kind: 'memory' }` keeps everything in this process; `{ kind: 'sqlite', path }`
 * opens (or creates) a SQLite file in WAL mode; `{ kind: 'postgres', url }` connects a pool to a
 * Postgres database, which any number of processes can share. Both databases are migrated to
 * the current schema on open. The drivers (`better-sqlite3`, `pg`) are optional peers, loaded
 * only by the kind that needs them.
 *
 * @throws RlmError `config.invalid` for bad options or a driver that is not installed,
 * `memory.schema_too_new` for a database written by a newer version, `memory.storage_failed`
 * when the database cannot be opened or reached
 *
 * @example
 * const store = await createStore({ kind: 'sqlite', path: 'agent.db' });
 * await store.conversations.append('0xAbC', { messageId: 'm1', senderBody: 'hi', agentReply: 'hello', turnId: 't1' });
 * const last = await store.conversations.recent('0xabc', 5);
 * await store.close();
 */
export async function createStore(options: StoreOptions): Promise<Store> {
  const resolved = parseSchema(storeOptionsSchema, options, {
    what: 'createStore options',
    code: 'config.invalid',
  });
  let closed = false;
  const context: BackendContext = {
    limits: resolved.limits,
    now: resolved.now ?? Date.now,
    policy: resolved.promptLayers ?? UNCONFIGURED_LAYER_POLICY,
    assertOpen(operation) {
      if (!closed) return;
      throw new RlmError({
        code: 'memory.storage_failed',
        message: `Cannot run ${operation}: the store is closed`,
        details: { operation },
      });
    },
  };
  const markClosed = async (): Promise<void> => {
    closed = true;
  };
  if (resolved.kind === 'memory') {
    return assembleStore(
      governPromptLayers(createMemoryParts(context, markClosed), context.policy),
    );
  }
  const driver =
    resolved.kind === 'sqlite'
      ? await openSqliteDriver(resolved)
      : await openPostgresDriver(resolved);
  const parts = createSqlParts(resolved.kind, driver, context);
  return assembleStore({
    ...governPromptLayers(parts, context.policy),
    close: async () => {
      closed = true;
      await parts.close();
    },
  });
}
