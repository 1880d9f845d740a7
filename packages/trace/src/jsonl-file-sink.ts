import { closeSync, existsSync, mkdirSync, openSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TrajectoryRecord } from '@rlm/protocol';
import { groupLines } from './line-group.js';
import type { TrajectorySink } from './trajectory-sink.js';

/**
 * Characters of packed lines held for one compressed group at most: a group this size is
 * written at once.
 * @default 262_144
 */
export const GROUP_MAX_CHARS = 256 * 1024;

/**
 * How long the first line of a group waits at most before the group is written (a timer, and
 * checked as lines arrive): what a process that dies mid-batch can lose, and how late a reader
 * of the live file sees a sub-call start. Long enough that a slow machine still writes groups of
 * many sub-calls (a group's size, not its age, ends it on a fast one).
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
 * group reaches `GROUP_MAX_CHARS`, when its first line is `GROUP_MAX_MS` old (by a timer, so
 * sub-calls waiting on a slow model are written all the same), and at `close`; a process that
 * dies loses at most that group. A write that fails is thrown (one the timer makes, by the
 * sink's next call: `write`, `writeLine` or `close`), and the sink writes nothing after it, so
 * the file stays a readable prefix of the run.
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
  /**
   * Set by the first write that fails: nothing is written after it, since later lines refer to
   * earlier ones (packed deltas) and the file must stay a readable prefix of the run. `thrown`
   * is false while the error (from the age timer) still waits for a call to throw it.
   */
  let failure: { error: unknown; thrown: boolean } | undefined;
  let group: string[] = [];
  let groupChars = 0;
  let groupStartedAt = 0;
  let ageTimer: ReturnType<typeof setTimeout> | undefined;
  const subCalls = new SubCallRecords();

  const stopTimer = () => {
    if (ageTimer !== undefined) clearTimeout(ageTimer);
    ageTimer = undefined;
  };
  /** Whether the sink still writes; throws a failure the age timer met, once. */
  const writable = (): boolean => {
    if (failure !== undefined && !failure.thrown) {
      failure.thrown = true;
      throw failure.error;
    }
    return fd !== undefined && failure === undefined;
  };
  const append = (text: string) => {
    if (fd === undefined || failure !== undefined) return;
    try {
      writeSync(fd, text);
    } catch (error) {
      failure = { error, thrown: true };
      throw error;
    }
  };
  const flush = () => {
    stopTimer();
    if (group.length === 0) return;
    const line = group.length === 1 ? group[0] : JSON.stringify(groupLines(group));
    group = [];
    groupChars = 0;
    append(`${line}\n`);
  };
  const flushOld = () => {
    ageTimer = undefined;
    try {
      flush();
    } catch (error) {
      // No caller to throw to: the sink's next call throws it, as its own failed write would.
      if (failure !== undefined) failure.thrown = false;
      else failure = { error, thrown: false };
    }
  };

  return {
    path,
    continued,
    write(record) {
      if (!writable()) return;
      flush();
      append(`${JSON.stringify(record)}\n`);
    },
    writeLine(line, record) {
      if (!writable()) return;
      const text = JSON.stringify(line);
      if (!subCalls.groupable(record)) {
        flush();
        append(`${text}\n`);
        return;
      }
      if (group.length === 0) {
        groupStartedAt = Date.now();
        // Unref'd: a group waiting to be written must not keep the process alive.
        ageTimer = setTimeout(flushOld, GROUP_MAX_MS);
        ageTimer.unref();
      }
      group.push(text);
      groupChars += text.length;
      if (groupChars >= GROUP_MAX_CHARS || Date.now() - groupStartedAt >= GROUP_MAX_MS) flush();
    },
    async close() {
      if (fd === undefined) return;
      try {
        if (writable()) flush();
      } finally {
        stopTimer();
        closeSync(fd);
        fd = undefined;
      }
    },
  };
}
