import { chmod, mkdir, open } from 'node:fs/promises';

/**
 * Creates `path` (and any missing parents) readable by this user only, and narrows it to 0700
 * when it already exists: a data directory made by an older version, or under a loose umask,
 * holds runs, contexts and key hashes.
 */
export async function privateDirectory(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  await chmod(path, 0o700);
}

/**
 * Creates `path` empty with mode 0600 when it is missing, and narrows it to 0600 when it is not.
 * Creating a SQLite file this way first matters: SQLite gives its `-wal`, `-shm` and journal
 * files the mode of the database file, whatever the umask.
 */
export async function privateFile(path: string): Promise<void> {
  const handle = await open(path, 'a', 0o600);
  try {
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
}

/** Narrows `path` to 0600 if it exists (the side files of a SQLite database left by a run). */
export async function narrowIfPresent(path: string): Promise<void> {
  await chmod(path, 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}
