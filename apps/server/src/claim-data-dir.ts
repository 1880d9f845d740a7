import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { DATA_DIR_LOCK_FILE, type HeldLock, holdLockFile } from './hold-lock-file.js';
import { narrowIfPresent, privateDirectory, privateFile } from './private-files.js';
import type { ServerConfig } from './server-config.js';

/** What `claimDataDir` holds until the server stops. */
export interface DataDirClaim {
  release(): void;
}

/**
 * Readies the server's files before anything reads or changes them: the data directory (0700),
 * and, without Postgres, an exclusive lock on it (`rlm-server.lock`), taken before the store is
 * opened, contexts are swept or runs recovered, so a second server on the same directory stops
 * there. A SQLite file outside the data directory gets its own lock (`<file>.lock` beside it):
 * two servers on one file would run the same runs too. The SQLite file is created, or narrowed,
 * to 0600 (SQLite gives its side files the same mode). With Postgres there is no lock: replicas
 * share the database by design and take over each other's runs through leases. Nor with the
 * in-memory store (`RLM_SERVER_DB=:memory:`): it keeps no runs to recover, and it must start
 * without the native SQLite driver, which the lock is taken through.
 *
 * @throws RlmError `server.conflict` when another server holds the directory or the file
 */
export async function claimDataDir(config: ServerConfig): Promise<DataDirClaim> {
  await privateDirectory(config.dataDir);
  if (config.store.kind !== 'sqlite') return { release: () => undefined };
  const locks: HeldLock[] = [
    await holdLockFile(join(config.dataDir, DATA_DIR_LOCK_FILE), {
      what: `the data directory ${config.dataDir}`,
    }),
  ];
  const release = () => {
    for (const lock of locks.reverse()) lock.release();
  };
  try {
    const path = resolve(config.store.path);
    if (dirname(path) !== resolve(config.dataDir)) {
      // Someone else's directory may hold the file: created private, never narrowed.
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      locks.push(await holdLockFile(`${path}.lock`, { what: `the SQLite file ${path}` }));
    }
    await privateFile(path);
    for (const suffix of ['-wal', '-shm', '-journal']) await narrowIfPresent(`${path}${suffix}`);
  } catch (error) {
    release();
    throw error;
  }
  return { release };
}
