import { z } from 'zod';
import { bm25Scores } from './bm25-scores.js';
import { parseInput } from './parse-input.js';
import type {
  MemoryItem,
  RetrievedMemory,
  RetrieveOptions,
  RetrieveResult,
} from './working-memory.js';

/**
 * Ranks candidate items and packs them into the budget. Shared by every backend so retrieval
 * behaves identically: relevant items (BM25 > 0) by descending score, ties newest first, then,
 * unless `fillWithRecent` is false, the remaining items newest first. An item that does not fit
 * is skipped and smaller later items may still fit.
 *
 * @param candidates items already filtered by kind and tags, newest first
 */
export function selectMemories(
  candidates: readonly MemoryItem[],
  options: RetrieveOptions,
): RetrieveResult {
  const { query, budgetChars, fillWithRecent } = parseInput(
    retrieveSchema,
    options,
    'retrieve options',
  );
  const scores = query === undefined ? [] : bm25Scores(query, candidates.map(searchableText));
  const relevant = candidates
    .map((item, index) => ({ item, score: scores[index] ?? 0, index }))
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const ranked: RetrievedMemory[] = relevant.map(({ item, score }) =>
    withProvenance(item, 'relevant', score),
  );
  if (fillWithRecent || ranked.length === 0) {
    const chosen = new Set(relevant.map((entry) => entry.item.id));
    for (const item of candidates) {
      if (!chosen.has(item.id)) ranked.push(withProvenance(item, 'recent', 0));
    }
  }
  const items: RetrievedMemory[] = [];
  let usedChars = 0;
  for (const item of ranked) {
    if (usedChars + item.content.length > budgetChars) continue;
    items.push(item);
    usedChars += item.content.length;
  }
  return { items, usedChars, omitted: candidates.length - items.length };
}

const retrieveSchema = z.object({
  query: z.string().optional(),
  budgetChars: z.number().int().nonnegative(),
  fillWithRecent: z.boolean().default(true),
});

function searchableText(item: MemoryItem): string {
  return `${item.content} ${item.tags.join(' ')}`;
}

function withProvenance(
  item: MemoryItem,
  reason: RetrievedMemory['reason'],
  score: number,
): RetrievedMemory {
  return {
    ...item,
    reason,
    score,
    provenance: {
      store: 'working-memory',
      itemId: item.id,
      kind: item.kind,
      source: item.source,
      at: item.at,
      label: `working-memory/${item.kind}#${item.id} from ${item.source}`,
    },
  };
}
