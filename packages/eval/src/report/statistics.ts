/** z for a two-sided 95% interval. */
export const Z_95 = 1.959_963_984_540_054;

/**
 * The Wilson score interval of a proportion: sound at small n and near 0 or 1, where the normal
 * approximation gives impossible bounds.
 */
export function wilsonInterval({
  successes,
  trials,
  z = Z_95,
}: {
  successes: number;
  trials: number;
  z?: number;
}): { low: number; high: number } {
  if (trials === 0) return { low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The nearest-rank percentile (`q` in [0, 1]) of values; 0 for none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

/**
 * The unbiased pass@k estimate for one task with `n` attempts of which `c` passed:
 * 1 − C(n−c, k) / C(n, k), computed as a product to stay exact for small numbers.
 */
export function passAtK({ n, c, k }: { n: number; c: number; k: number }): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} attempts, got ${n}`);
  if (n - c < k) return 1;
  let missAll = 1;
  for (let index = n - c + 1; index <= n; index += 1) missAll *= 1 - k / index;
  return 1 - missAll;
}
