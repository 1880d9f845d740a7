import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { z } from 'zod';
import { type ApiKeyRecord, type ApiKeyStore, apiKeyRecordSchema } from './api-key-store.js';

const keyFileSchema = z.object({ version: z.literal(1), keys: z.array(apiKeyRecordSchema) });

/**
 * Keys in a JSON file (mode 0600) beside the database. The file is re-read when its mtime changes,
 * so `rlm-server keys revoke` takes effect in a running server without a restart. Writes go to a
 * temporary file and are renamed into place, so a crash never leaves half a file.
 */
export function createFileApiKeyStore(path: string): ApiKeyStore {
  let cache: { mtimeMs: number; keys: ApiKeyRecord[] } | undefined;

  async function load(): Promise<ApiKeyRecord[]> {
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(path)).mtimeMs;
    } catch {
      return [];
    }
    if (cache?.mtimeMs === mtimeMs) return cache.keys;
    const parsed = keyFileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (!parsed.success) {
      throw new RlmError({
        code: 'config.invalid',
        message: `The API key file ${path} is not valid`,
        details: { source: path, issues: parsed.error.issues.map((issue) => issue.message) },
      });
    }
    cache = { mtimeMs, keys: parsed.data.keys };
    return cache.keys;
  }

  async function save(keys: ApiKeyRecord[]): Promise<void> {
    // `keys create` is often the first command in a new data directory: it is made private.
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ version: 1, keys }, null, 2)}\n`, {
      mode: 0o600,
    });
    await rename(temporary, path);
    cache = undefined;
  }

  return {
    async findByHash(hash) {
      return (await load()).find((record) => record.hash === hash);
    },
    async add(record) {
      await save([...(await load()), record]);
    },
    async list() {
      return [...(await load())];
    },
    async revoke(id, at) {
      const keys = await load();
      if (!keys.some((record) => record.id === id)) return false;
      await save(
        keys.map((record) =>
          record.id === id && record.revokedAt === null
            ? { ...record, revokedAt: at.toISOString() }
            : record,
        ),
      );
      return true;
    },
  };
}
