import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { RlmError } from '@rlm/protocol';
import type Database from 'better-sqlite3';
import { privateFile } from './private-files.js';

/** The file in a data directory that one server holds locked while it runs. */
export const DATA_DIR_LOCK_FILE = 'rlm-server.lock';

/** Who holds a data directory. */
export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** A held lock; `release` lets the next server in. */
export interface HeldLock {
  holder: LockHolder;
  release(): void;
}

/**
 * Takes the lock file at `path` for this process, or refuses because another server has it.
 *
 * The lock is SQLite's own file lock on that file (a POSIX record lock on Unix,
 * `LockFileEx` on Windows) kept for the life of the connection by `locking_mode = EXCLUSIVE`.
 * The operating system drops it when its process dies, however it dies, so a crashed server
 * leaves nothing to clean up and no pid is ever trusted as proof of life (pids are reused, and a
 * container restarted on the same volume gets the same ones). The holder's pid, host and start
 * time are written in the same file for the message a second server prints: a lock is advisory,
 * so the refused server reads the committed bytes directly and opens them in memory.
 *
 * @throws RlmError `server.conflict` naming the holder (and `what`) while another process has it
 */
export async function holdLockFile(
  path: string,
  {
    what,
    now = () => new Date(),
  }: {
    /** What the lock stands for, in the refusal: `the data directory /srv/rlm`. */
    what: string;
    now?: () => Date;
  },
): Promise<HeldLock> {
  await privateFile(path);
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const db = new BetterSqlite3(path, { timeout: 0 });
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: now().toISOString() };
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // A write in exclusive mode keeps the exclusive lock after COMMIT, until the connection closes.
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER, host TEXT, started_at TEXT)');
    db.exec('DELETE FROM holder');
    db.prepare('INSERT INTO holder (pid, host, started_at) VALUES (?, ?, ?)').run(
      holder.pid,
      holder.host,
      holder.startedAt,
    );
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw held(what, await readHolder(BetterSqlite3, path));
    throw error;
  }
  // Held in a closure for the life of the server: a collected connection would unlock the file.
  return {
    holder,
    release() {
      if (db.open) db.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** The holder as the lock file records it; undefined while it is being written. */
async function readHolder(
  BetterSqlite3: typeof Database,
  path: string,
): Promise<LockHolder | undefined> {
  try {
    const copy = new BetterSqlite3(await readFile(path));
    try {
      const row = copy.prepare('SELECT pid, host, started_at FROM holder LIMIT 1').get() as
        | { pid: number; host: string; started_at: string }
        | undefined;
      return row && { pid: row.pid, host: row.host, startedAt: row.started_at };
    } finally {
      copy.close();
    }
  } catch {
    return undefined;
  }
}

function held(what: string, holder: LockHolder | undefined): RlmError<'server.conflict'> {
  const who =
    holder === undefined
      ? 'another rlm-server process'
      : `rlm-server pid ${holder.pid} on host ${holder.host}, started ${holder.startedAt}`;
  return new RlmError({
    code: 'server.conflict',
    message:
      `${capitalize(what)} is in use by ${who}. Two servers on one directory would ` +
      'run the same runs twice: stop that server first, or give this one its own ' +
      'RLM_SERVER_DATA_DIR (or use RLM_DATABASE_URL to run replicas on Postgres).',
    details: { reason: `${what} is locked by ${who}` },
  });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
