import { RlmError } from '@rlm/protocol';
import type Database from 'better-sqlite3';
import { retryWhileBusy } from './retry-while-busy.js';
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from './sqlite-migrations.js';

/**
 * Brings the file's schema to `SQLITE_SCHEMA_VERSION`. A file already current needs no lock; an
 * older one is migrated in one IMMEDIATE transaction, re-reading the version inside it so two
 * processes opening the same old file migrate it once.
 * @throws RlmError `memory.schema_too_new` when the file is from a newer version
 */
export async function migrateSqlite(db: Database.Database, busyTimeoutMs: number): Promise<void> {
  if (readVersion(db) === SQLITE_SCHEMA_VERSION) return;
  await retryWhileBusy(() => db.exec('BEGIN IMMEDIATE'), busyTimeoutMs);
  try {
    const fileVersion = readVersion(db);
    for (const migration of SQLITE_MIGRATIONS) {
      if (migration.version > fileVersion) db.exec(migration.sql);
    }
    if (fileVersion < SQLITE_SCHEMA_VERSION) db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * The file's schema version, checked before anything is written to it.
 * @throws RlmError `memory.schema_too_new`
 */
export function readVersion(db: Database.Database): number {
  const fileVersion = Number(db.pragma('user_version', { simple: true }));
  if (fileVersion > SQLITE_SCHEMA_VERSION) {
    throw new RlmError({
      code: 'memory.schema_too_new',
      message: `The database was written by a newer @rlm/memory (schema ${fileVersion}; this version reads up to ${SQLITE_SCHEMA_VERSION}). Upgrade @rlm/memory to open it.`,
      details: { fileVersion, supportedVersion: SQLITE_SCHEMA_VERSION },
    });
  }
  return fileVersion;
}
