import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.js';

/** Keys held in process memory (tests, `store.kind: memory`). */
export function createMemoryApiKeyStore(initial: readonly ApiKeyRecord[] = []): ApiKeyStore {
  const byId = new Map(initial.map((record) => [record.id, { ...record }]));
  return {
    async findByHash(hash) {
      for (const record of byId.values()) if (record.hash === hash) return { ...record };
      return undefined;
    },
    async add(record) {
      byId.set(record.id, { ...record });
    },
    async list() {
      return [...byId.values()].map((record) => ({ ...record }));
    },
    async revoke(id, at) {
      const record = byId.get(id);
      if (record === undefined) return false;
      record.revokedAt ??= at.toISOString();
      return true;
    },
  };
}
