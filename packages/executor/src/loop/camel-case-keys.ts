const SNAKE = /_([a-z0-9])/g;

/**
 * An options object with `snake_case` keys also readable under their `camelCase` names. Python
 * keyword arguments arrive camel-cased already (`system_prompt=` is `systemPrompt`), but an options
 * dict written out (`{'system_prompt': …}`, an `rlm_query_batched` item) keeps its keys. A key
 * already written in camelCase wins. Anything but a plain object is returned unchanged.
 */
export function camelCaseKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.some(([key]) => key.includes('_'))) return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    const camel = key.replace(SNAKE, (_match, letter: string) => letter.toUpperCase());
    if (camel === key || !Object.hasOwn(value, camel)) result[camel] = item;
  }
  return result;
}
