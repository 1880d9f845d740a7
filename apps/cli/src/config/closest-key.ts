/**
 * The known key `name` was most likely meant to be, for a "did you mean" hint: the same key in
 * another spelling (`max_depth`, `MAX-DEPTH`, `RLM_MAX_DEPTH`), else the nearest by edit distance
 * if it is near enough to be a typo. Undefined when nothing is close.
 */
export function closestKey(name: string, known: readonly string[]): string | undefined {
  const normal = normalize(name);
  const sameWords = known.find((key) => normalize(key) === normal);
  if (sameWords !== undefined) return sameWords;
  // One edit in four characters, at least two: `maxDepht`, `modle`, `maxIteration`.
  const allowed = Math.max(2, Math.floor(normal.length / 4));
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(normal, normalize(key));
    if (distance <= allowed && (best === undefined || distance < best.distance)) {
      best = { key, distance };
    }
  }
  return best?.key;
}

function normalize(name: string): string {
  return name
    .toLowerCase()
    .replace(/[-_\s]/g, '')
    .replace(/^rlm(?=.)/, '');
}

/** Optimal string alignment distance: a swap of two neighbours (`ht` for `th`) is one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}
