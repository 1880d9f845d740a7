import { closeSync, existsSync, mkdirSync, openSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TrajectorySink } from './trajectory-sink.js';

/**
 * Writes one JSON line per record (packed, when the recorder packs) to `<dir>/<runId>.jsonl`. Each line is written with a
 * synchronous `write` as it happens, so the file is always a complete prefix of the run, even if
 * the process dies mid-run.
 */
export function jsonlFileSink(
  dir: string,
  runId: string,
  {
    continueAt,
  }: {
    /**
     * Continue an existing file (a resumed run): cut it to this many bytes — the end of the last
     * checkpointed turn, dropping what an interrupted turn wrote — and append; `end` appends to
     * all of it (a run started over after a stop keeps its earlier attempt).
     */
    continueAt?: number | 'end' | undefined;
  } = {},
): TrajectorySink & {
  /** Whether the file had records before this sink (then it needs no header). */
  readonly continued: boolean;
} {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${runId.replace(/[^\w.-]/g, '_')}.jsonl`);
  const continued = continueAt !== undefined && existsSync(path);
  if (continued && continueAt !== 'end') truncateSync(path, continueAt);
  let fd: number | undefined = openSync(path, continued ? 'a' : 'w');
  return {
    path,
    continued,
    write(record) {
      if (fd === undefined) return;
      writeSync(fd, `${JSON.stringify(record)}\n`);
    },
    writeLine(line) {
      if (fd === undefined) return;
      writeSync(fd, `${JSON.stringify(line)}\n`);
    },
    async close() {
      if (fd === undefined) return;
      closeSync(fd);
      fd = undefined;
    },
  };
}
