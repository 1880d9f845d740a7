import type { MemoryItem, MemoryListOptions } from './working-memory.js';

/** True when the item has one of `kinds` (if given) and every tag in `tags` (if given). */
export function matchesMemoryFilter(
  item: MemoryItem,
  { kinds, tags }: Pick<MemoryListOptions, 'kinds' | 'tags'>,
): boolean {
  if (kinds !== undefined && !kinds.includes(item.kind)) return false;
  return tags === undefined || tags.every((tag) => item.tags.includes(tag));
}
