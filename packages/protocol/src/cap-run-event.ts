import type { RunEvent } from './run-event.js';
import { truncationMarker } from './truncate-output.js';

/**
 * The most characters one event may take as JSON when it is stored or sent (trajectories, the
 * server's event table, SSE). Room for a default-sized final answer (1,000,000 characters) and the
 * response around it; a larger event has its longest texts cut (see `capRunEvent`).
 */
export const MAX_RUN_EVENT_CHARS = 2 * 1024 * 1024;

/**
 * Strings and arrays this short are never cut: type tags, ids and model names stay whole, so a
 * cut event still matches the schema. (Any real cap leaves far more room than this.)
 */
const SHORTEST_CUT = 64;

/**
 * An event that fits in `maxChars` characters of JSON: unchanged when it already does; otherwise
 * its longest strings are cut to one common length, each with the `… + [N chars...]` marker, and
 * its longest arrays (chunk lengths of a huge array context) to as many items, choosing the
 * largest length that fits. The result still matches the event schema.
 *
 * @example
 * store.appendEvent(runId, capRunEvent(event));
 */
export function capRunEvent<TEvent extends RunEvent>(
  event: TEvent,
  maxChars: number = MAX_RUN_EVENT_CHARS,
): TEvent {
  const longest = longestPart(event);
  // A string or array longer than the cap cannot stay whole: no need to serialize it all to know.
  if (longest <= maxChars && JSON.stringify(event).length <= maxChars) return event;
  let fits = SHORTEST_CUT;
  let tooLong = Math.min(longest, maxChars) + 1;
  // The largest cut that fits: every string and array is at most `limit` long.
  while (tooLong - fits > 1) {
    const limit = Math.floor((fits + tooLong) / 2);
    if (JSON.stringify(cutTo(event, limit)).length <= maxChars) fits = limit;
    else tooLong = limit;
  }
  return cutTo(event, fits) as TEvent;
}

/** The length of the longest string or array in a value. */
function longestPart(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  const items: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return items.reduce<number>(
    (longest, item) => Math.max(longest, longestPart(item)),
    Array.isArray(value) ? value.length : 0,
  );
}

function cutTo(value: unknown, limit: number): unknown {
  if (typeof value === 'string') {
    return value.length <= limit
      ? value
      : value.slice(0, limit) + truncationMarker(value.length - limit);
  }
  if (Array.isArray(value)) return value.slice(0, limit).map((item) => cutTo(item, limit));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, cutTo(item, limit)]),
    );
  }
  return value;
}
