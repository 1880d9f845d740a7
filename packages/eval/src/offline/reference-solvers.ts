import type { JsonValue } from '@rlm/protocol';

/**
 * A reference solver for one built-in benchmark, written as two self-contained functions so the
 * same source runs on the host (base system, sub-calls) and inside the sandbox (its
 * `toString()` is pasted into ```repl code). They may use only their arguments: no imports,
 * no closures.
 *
 * - `map(text, params)` reads one piece of the context and returns a partial result as text;
 * - `reduce(partials, params)` combines the partials into the answer.
 */
export interface ReferenceSolver {
  map: (text: string, params: Record<string, JsonValue>) => string;
  reduce: (partials: readonly string[], params: Record<string, JsonValue>) => string;
  /** Whether the pieces may be independent chunks (false: `map` needs the whole context). */
  chunkable: boolean;
}

/** Codes found for the asked keys, one `key=code` per line. */
function sniahMap(text: string, params: Record<string, JsonValue>): string {
  const keys = params['keys'] as string[];
  const found: string[] = [];
  for (const key of keys) {
    const match = new RegExp(`secret code for ${key} is (\\d+)`).exec(text);
    if (match) found.push(`${key}=${match[1]}`);
  }
  return found.join('\n');
}

function sniahReduce(partials: readonly string[], params: Record<string, JsonValue>): string {
  const keys = params['keys'] as string[];
  const codes: Record<string, string> = {};
  for (const partial of partials) {
    for (const line of partial.split('\n')) {
      const [key, code] = line.trim().split('=');
      if (key && code && !(key in codes)) codes[key] = code;
    }
  }
  const answer = keys.map((key) => codes[key]).filter((code) => code !== undefined);
  return answer.length === 0 ? 'NOT FOUND' : answer.join('\n');
}

/** Per label: count of records (restricted to `month` when given), as JSON. */
function aggregateMap(text: string, params: Record<string, JsonValue>): string {
  const labels = params['labels'] as Record<string, string[]>;
  const month = params['month'] as number | null;
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const fields = line.split(' | ');
    if (fields.length < 4) continue;
    if (month !== null && Number(String(fields[1]).slice(5, 7)) !== month) continue;
    const message = fields.slice(3).join(' | ').toLowerCase();
    for (const label of Object.keys(labels)) {
      if ((labels[label] ?? []).some((phrase) => message.includes(phrase))) {
        counts[label] = (counts[label] ?? 0) + 1;
        break;
      }
    }
  }
  return JSON.stringify(counts);
}

function aggregateReduce(partials: readonly string[], params: Record<string, JsonValue>): string {
  const totals: Record<string, number> = {};
  for (const partial of partials) {
    let counts: Record<string, number> = {};
    try {
      counts = JSON.parse(partial);
    } catch {
      continue;
    }
    for (const [label, count] of Object.entries(counts))
      totals[label] = (totals[label] ?? 0) + count;
  }
  const first = totals[params['label'] as string] ?? 0;
  const other = params['otherLabel'] as string | null;
  return String(other === null ? first : first - (totals[other] ?? 0));
}

/** Users with a record about the asked label, one per line. */
function pairsMap(text: string, params: Record<string, JsonValue>): string {
  const phrases = (params['labels'] as Record<string, string[]>)[params['label'] as string] ?? [];
  const users = new Set<string>();
  for (const line of text.split('\n')) {
    const fields = line.split(' | ');
    if (fields.length < 4) continue;
    const message = fields.slice(3).join(' | ').toLowerCase();
    if (phrases.some((phrase) => message.includes(phrase))) users.add(String(fields[2]).trim());
  }
  return [...users].join('\n');
}

function pairsReduce(partials: readonly string[]): string {
  const users = [
    ...new Set(partials.flatMap((partial) => partial.split('\n').map((user) => user.trim()))),
  ]
    .filter((user) => /^u\d+$/.test(user))
    .sort();
  const pairs: string[] = [];
  for (let first = 0; first < users.length; first += 1) {
    for (let second = first + 1; second < users.length; second += 1)
      pairs.push(`${users[first]},${users[second]}`);
  }
  return pairs.length === 0 ? 'NONE' : pairs.join('\n');
}

/** Follows founder → company → city (→ mayor) through the documents. */
function multidocMap(text: string, params: Record<string, JsonValue>): string {
  const quote = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const founder = params['founder'] as string;
  const company = new RegExp(`${quote(founder)} founded ([^.]+)\\.`).exec(text)?.[1];
  if (company === undefined) return 'NOT FOUND';
  const city = new RegExp(
    `${quote(company)} employs[^.]*\\. Its headquarters are in ([^.]+)\\.`,
  ).exec(text)?.[1];
  if (city === undefined) return 'NOT FOUND';
  if (params['hops'] === 2) return city;
  return (
    new RegExp(`The current mayor of ${quote(city)} is ([^.]+)\\.`).exec(text)?.[1] ?? 'NOT FOUND'
  );
}

function firstPartial(partials: readonly string[]): string {
  return partials[0] ?? 'NOT FOUND';
}

/** Reference solvers of the built-in benchmarks, by `meta.benchmark`. */
export const REFERENCE_SOLVERS: Readonly<Record<string, ReferenceSolver>> = {
  sniah: { map: sniahMap, reduce: sniahReduce, chunkable: true },
  aggregate: { map: aggregateMap, reduce: aggregateReduce, chunkable: true },
  pairs: { map: pairsMap, reduce: pairsReduce, chunkable: true },
  multidoc: { map: multidocMap, reduce: firstPartial, chunkable: false },
};
