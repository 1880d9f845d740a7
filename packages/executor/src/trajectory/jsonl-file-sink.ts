import { closeSync, existsSync, mkdirSync, openSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TrajectoryRecord } from '@rlm/protocol';
import { groupLines } from '@rlm/trace';
import type { TrajectorySink } from './trajectory-sink.js';

/**
 * Characters of packed lines held for one compressed group at most: a group this size is
 * written at once.
 * @default 262_144
 */
export const GROUP_MAX_CHARS = 256 * 1024;

/**
 * How long the first line of a group waits at most before the group is written (checked as lines
 * arrive): what a process that dies mid-batch can lose. Long enough that a slow machine still
 * writes groups of many sub-calls (a group's size, not its age, ends it on a fast one).
 */
export const GROUP_MAX_MS = 5_000;

/**
 * Which records may wait in a group: a sub-call's own records (its start and end, and the model
 * call it makes, with the same call id), which come by the thousand from a batched call. The
 * root's turns, blocks and child runs are written as they come.
 */
class SubCallRecords {
  readonly #open = new Set<string>();

  groupable(record: TrajectoryRecord): boolean {
    if (record.kind === 'model-exchange') return this.#open.has(record.callId);
    if (record.kind !== 'event') return false;
    const { event } = record;
    switch (event.type) {
      case 'subcall-start':
        this.#open.add(event.callId);
        return true;
      case 'subcall-end':
        this.#open.delete(event.callId);
        return true;
      case 'model-call-start':
      case 'model-call-end':
        return this.#open.has(event.callId);
      default:
        return false;
    }
  }
}

/**
 * Writes one JSON line per record (packed, when the recorder packs) to `<dir>/<runId>.jsonl`.
 * Lines are written with a synchronous `write`, so the file is always a complete prefix of the
 * run, even if the process dies mid-run. Sub-calls are the exception that keeps files small:
 * their packed lines (start, model call, exchange, end) wait and are written together as one
 * compressed line (format 3) when any other record comes (a block's end, a child run), when the
 * group reaches
 * `GROUP_MAX_CHARS` or `GROUP_MAX_MS`, and at `close`; a process that dies loses at most that
 * group.
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
  let group: string[] = [];
  let groupChars = 0;
  let groupStartedAt = 0;
  const subCalls = new SubCallRecords();

  const flush = () => {
    if (fd === undefined || group.length === 0) return;
    const line = group.length === 1 ? group[0] : JSON.stringify(groupLines(group));
    group = [];
    groupChars = 0;
    writeSync(fd, `${line}\n`);
  };

  return {
    path,
    continued,
    write(record) {
      if (fd === undefined) return;
      flush();
      writeSync(fd, `${JSON.stringify(record)}\n`);
    },
    writeLine(line, record) {
      if (fd === undefined) return;
      const text = JSON.stringify(line);
      if (!subCalls.groupable(record)) {
        flush();
        writeSync(fd, `${text}\n`);
        return;
      }
      if (group.length === 0) groupStartedAt = Date.now();
      group.push(text);
      groupChars += text.length;
      if (groupChars >= GROUP_MAX_CHARS || Date.now() - groupStartedAt >= GROUP_MAX_MS) flush();
    },
    async close() {
      if (fd === undefined) return;
      flush();
      closeSync(fd);
      fd = undefined;
    },
  };
}
