import { parseSchema, RlmError } from '@rlm/protocol';
import { assembleStore } from './assemble-store.js';
import type { BackendContext } from './backend-context.js';
import { governPromptLayers } from './govern-prompt-layers.js';
import { createMemoryParts } from './memory-backend/create-memory-parts.js';
import { createSqlParts } from './sql-backend/create-sqlite-parts.js';
import { openSqliteDriver } from './sql-backend/open-sqlite-driver.js';
import type { Store } from './store.js';
import { type StoreOptions, storeOptionsSchema } from './store-options.js';
import { UNCONFIGURED_LAYER_POLICY } from './unconfigured-layer-policy.js';

/**
 * Opens a store: `{ kind: 'memory' }` keeps everything in this process; `{ kind: 'sqlite', path }`
 * opens (or creates) a SQLite file in WAL mode and migrates it to the current schema.
 *
 * @throws RlmError `protocol.invalid_config` for bad options, `memory.schema_too_new` for a file
 * written by a newer version, `memory.storage_failed` when the file cannot be opened
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
    code: 'protocol.invalid_config',
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
  const driver = await openSqliteDriver(resolved);
  const parts = createSqlParts(driver, context);
  return assembleStore({
    ...governPromptLayers(parts, context.policy),
    close: async () => {
      closed = true;
      await parts.close();
    },
  });
}
