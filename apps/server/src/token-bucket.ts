/**
 * Token buckets by key: each holds up to `perMinute` tokens and refills continuously. State lives
 * in the returned object (one per server instance), never in a module global.
 */
export interface TokenBuckets {
  /** Tokens `key` has now. */
  available(key: string): number;
  /** Takes one token; false (and nothing taken) when fewer than one is left. */
  take(key: string): boolean;
  /** Milliseconds until `key` has one token again. */
  retryAfterMs(key: string): number;
}

export function createTokenBuckets({
  perMinute,
  now = Date.now,
}: {
  perMinute: number;
  now?: () => number;
}): TokenBuckets {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMs = perMinute / 60_000;
  const refill = (key: string) => {
    const time = now();
    const bucket = buckets.get(key) ?? { tokens: perMinute, at: time };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (time - bucket.at) * perMs);
    bucket.at = time;
    // A full bucket is the same as none: forget it, so the map holds only recent clients.
    if (bucket.tokens >= perMinute) buckets.delete(key);
    else buckets.set(key, bucket);
    return bucket;
  };
  return {
    available: (key) => refill(key).tokens,
    take(key) {
      const bucket = refill(key);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      buckets.set(key, bucket);
      return true;
    },
    retryAfterMs: (key) => Math.max(0, Math.ceil((1 - refill(key).tokens) / perMs)),
  };
}
