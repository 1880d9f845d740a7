import type { RunStore, StoredRunEvent } from '@rlm/memory';
import { RlmError } from '@rlm/protocol';
import type { Context } from 'hono';
import type { SSEStreamingApi } from 'hono/streaming';
import type { AppEnv } from '../app-env.js';
import type { EventHub } from '../event-hub.js';
import { guardedSse } from '../guarded-sse.js';
import { reopenedAt, supersedesEnd } from '../run-outcome.js';

const PAGE_SIZE = 500;

export interface RunEventStreamOptions {
  store: RunStore;
  hub: EventHub;
  runId: string;
  /** Resume after this sequence number (the `Last-Event-ID` the client last saw). */
  afterSeq: number;
  heartbeatMs: number;
  /** Whether the run has ended (all of its events are stored by then). */
  isFinished: () => Promise<boolean>;
  /** Aborted when the server shuts down: the stream ends with `event: shutdown`. */
  stopping?: AbortSignal;
  /** Applied to each event's JSON before it is sent (hides upstream URLs from user keys). */
  redact?: (json: string) => string;
}

/** What the last message of a stream cut by a shutdown says. */
export const SHUTDOWN_NOTICE =
  'The server is shutting down; reconnect and send Last-Event-ID to continue after the last event you received';

/**
 * Streams a run's stored events as SSE: `id` is the per-run sequence number, `event` the event
 * type, `data` the JSON event. Every event is read back from the store, so a client only sees
 * what is durable and a reconnect with `Last-Event-ID` resumes with no gap and no duplicate.
 * Idle streams get a comment heartbeat; when the run has ended the stream sends `event: end`
 * and closes.
 */
export function streamRunEvents(c: Context<AppEnv>, options: RunEventStreamOptions): Response {
  const { stopping } = options;
  return guardedSse(c, async (stream) => {
    const aborted = new AbortController();
    stream.onAbort(() => aborted.abort());
    const onStop = () => aborted.abort();
    stopping?.addEventListener('abort', onStop, { once: true });
    try {
      await follow(stream, aborted.signal, options);
    } finally {
      // Also when reading the store fails: the signal outlives every stream of the server.
      stopping?.removeEventListener('abort', onStop);
    }
  });
}

/** Sends the run's events until it ends, the client goes or the server shuts down. */
async function follow(
  stream: SSEStreamingApi,
  aborted: AbortSignal,
  options: RunEventStreamOptions,
): Promise<void> {
  const { store, hub, runId, heartbeatMs, isFinished, stopping } = options;
  let seq = options.afterSeq;
  // Writes everything stored after `seq`; true when the run has ended and all of it was sent.
  const drain = async (): Promise<boolean> => {
    for (;;) {
      const page = await store.eventsAfter(runId, seq, { limit: PAGE_SIZE });
      seq = await writeEvents(stream, page, {
        after: seq,
        redact: options.redact,
        superseded: (end) => supersededEnd(store, runId, end),
      });
      if (page.length === PAGE_SIZE) continue;
      if (!(await isFinished())) return false;
      // The final status is written after the last event, so one more read closes the race.
      if ((await store.eventsAfter(runId, seq, { limit: 1 })).length === 0) return true;
    }
  };
  while (!aborted.aborted) {
    const version = hub.version(runId);
    if (await drain()) {
      await stream.writeSSE({ event: 'end', data: JSON.stringify({ lastEventId: seq }) });
      return;
    }
    const changed = await hub.waitForChange(runId, version, {
      timeoutMs: heartbeatMs,
      signal: aborted,
    });
    if (!changed && !aborted.aborted) await stream.write(': heartbeat\n\n');
  }
  if (stopping?.aborted === true && !stream.aborted && !stream.closed) {
    await stream.writeSSE({
      event: 'shutdown',
      data: JSON.stringify({ message: SHUTDOWN_NOTICE, lastEventId: seq }),
    });
  }
}

/**
 * Whether the root `run-end` stored at `seq` was superseded by a resume (see `supersedesEnd`): a
 * resumed run's log keeps the end of the attempt it continued, and its stream leaves it out, so a
 * client that reads the run from its start sees it end once. What supersedes an end comes right
 * after it (the resumed run's first event, or the end of a resume that failed), or the run was
 * reopened since (see `reopenedAt`).
 */
async function supersededEnd(
  store: RunStore,
  runId: string,
  { seq, at }: { seq: number; at: number },
): Promise<boolean> {
  const next = await store.eventsAfter(runId, seq, { limit: 3 });
  if (next.some(({ event }) => supersedesEnd(event))) return true;
  // Resumed, and the resumed run has not emitted its first event yet.
  const record = await store.getRun(runId);
  const reopened = record === undefined ? undefined : reopenedAt(record);
  return reopened !== undefined && at <= reopened;
}

/** Writes stored events as SSE messages; returns the last sequence number written. */
async function writeEvents(
  stream: SSEStreamingApi,
  page: readonly StoredRunEvent[],
  {
    after,
    redact,
    superseded,
  }: {
    after: number;
    redact: ((json: string) => string) | undefined;
    superseded: (end: { seq: number; at: number }) => Promise<boolean>;
  },
): Promise<number> {
  let seq = after;
  for (const { seq: eventSeq, event } of page) {
    if (
      event.depth === 0 &&
      event.type === 'run-end' &&
      (await superseded({ seq: eventSeq, at: event.at }))
    ) {
      seq = eventSeq;
      continue;
    }
    const data = JSON.stringify(event);
    await stream.writeSSE({
      id: String(eventSeq),
      event: event.type,
      data: redact === undefined ? data : redact(data),
    });
    seq = eventSeq;
  }
  return seq;
}

/**
 * The sequence number to resume after: `Last-Event-ID`, else `?after=`, else 0.
 *
 * @throws RlmError `protocol.invalid_message` naming the header or parameter when it is not a
 *   non-negative safe integer (written in decimal digits)
 */
export function resumePoint(c: Context): number {
  const header = c.req.header('last-event-id');
  const query = c.req.query('after');
  const [field, raw] =
    header !== undefined ? ['Last-Event-ID', header] : query !== undefined ? ['after', query] : [];
  if (field === undefined || raw === undefined) return 0;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (Number.isSafeInteger(value)) return value;
  throw new RlmError({
    code: 'protocol.invalid_message',
    message: `${field}: expected a non-negative integer event id of at most ${Number.MAX_SAFE_INTEGER}, got "${raw.slice(0, 40)}"`,
    details: { issues: [`${field}: expected a non-negative safe integer`] },
  });
}
