import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonValue } from '@rlm/protocol';
import { z } from 'zod';
import {
  contextNotFound,
  isContextId,
  meterContext,
  newContextId,
  saveContextValue,
} from './context-checks.js';
import { parseContextJson } from './parse-context-json.js';

/** What is known about a stored context without reading it. */
export const contextMetaSchema = z.object({
  id: z.string(),
  owner: z.string(),
  /** `text` is stored as one string; `json` was a JSON string, array or object. */
  format: z.enum(['text', 'json']),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  createdAt: z.string(),
});
export type ContextMeta = z.infer<typeof contextMetaSchema>;

/** Contexts on disk: uploaded once, reused by id, and saved for every inline run context too. */
export interface ContextStore {
  /**
   * Streams `body` to disk, stopping at `limitBytes`.
   * @throws RlmError `server.payload_too_large` past the limit (nothing is left on disk),
   *   `protocol.invalid_payload` when `format` is `json` and the bytes are not JSON.
   */
  save(
    body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: { owner: string; format: 'text' | 'json'; limitBytes: number; pending?: boolean },
  ): Promise<ContextMeta>;
  /**
   * Saves a context given inline in a request, so a restarted server can run it again. With
   * `pending`, only the data is written: the context exists (for `meta` and `load`) once
   * `commit` writes its metadata, and data without metadata is an orphan `sweep` removes.
   */
  saveValue(value: JsonValue, options: { owner: string; pending?: boolean }): Promise<ContextMeta>;
  /** Makes a pending context real by writing its metadata. */
  commit(meta: ContextMeta): Promise<void>;
  /** Deletes a context (data and metadata); false when there was none. */
  remove(id: string): Promise<boolean>;
  /**
   * Start-up: deletes what a crash left behind, data files without metadata (an upload or a run
   * submission cut off before it was complete). Returns how many were removed.
   */
  sweep(): Promise<number>;
  meta(id: string): Promise<ContextMeta | undefined>;
  /** @throws RlmError `server.not_found` */
  load(id: string): Promise<JsonValue>;
}

/** Creates a context store under `directory` (created on first write). */
export function createContextStore(directory: string): ContextStore {
  const dataPath = (id: string) => join(directory, `${id}.data`);
  const metaPath = (id: string) => join(directory, `${id}.meta.json`);

  async function meta(id: string): Promise<ContextMeta | undefined> {
    if (!isContextId(id)) return undefined;
    try {
      return contextMetaSchema.parse(JSON.parse(await readFile(metaPath(id), 'utf8')));
    } catch {
      return undefined;
    }
  }

  const store: ContextStore = {
    async save(body, { owner, format, limitBytes, pending = false }) {
      // Contexts are users' data: only this user may list or read them, whatever the umask.
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const id = newContextId();
      const meter = meterContext(limitBytes);
      const file = createWriteStream(dataPath(id), { mode: 0o600 });
      try {
        for await (const chunk of body) {
          meter.add(chunk);
          if (!file.write(chunk))
            await new Promise<void>((resolve) => file.once('drain', () => resolve()));
        }
        await new Promise<void>((resolve, reject) =>
          file.end((error?: Error | null) => (error ? reject(error) : resolve())),
        );
        if (format === 'json') await parseJsonFile(dataPath(id));
      } catch (error) {
        file.destroy();
        await rm(dataPath(id), { force: true });
        throw error;
      }
      const record: ContextMeta = {
        id,
        owner,
        format,
        bytes: meter.bytes,
        sha256: meter.sha256(),
        createdAt: new Date().toISOString(),
      };
      if (!pending) await store.commit(record);
      return record;
    },
    saveValue: (value, options) => saveContextValue(store.save, value, options),
    async commit(record) {
      await writeFile(metaPath(record.id), JSON.stringify(record), { mode: 0o600 });
    },
    async remove(id) {
      if (!isContextId(id)) return false;
      const found = (await meta(id)) !== undefined;
      // Metadata first: a context without metadata no longer exists, even if the data stays.
      await rm(metaPath(id), { force: true });
      await rm(dataPath(id), { force: true });
      return found;
    },
    async sweep() {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch {
        return 0;
      }
      const present = new Set(names);
      let removed = 0;
      for (const name of names) {
        const id = name.endsWith('.data') ? name.slice(0, -'.data'.length) : undefined;
        if (id === undefined || present.has(`${id}.meta.json`)) continue;
        await rm(join(directory, name), { force: true });
        removed += 1;
      }
      return removed;
    },
    meta,
    async load(id) {
      const found = await meta(id);
      if (found === undefined) throw contextNotFound(id);
      return found.format === 'json' ? parseJsonFile(dataPath(id)) : readFile(dataPath(id), 'utf8');
    },
  };
  return store;
}

async function parseJsonFile(path: string): Promise<JsonValue> {
  return parseContextJson(await readFile(path, 'utf8'));
}
