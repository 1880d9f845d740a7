import { translatePythonRegex } from './python-regex-subset.js';

/** Most characters of one reply (the matches' JSON); a bigger result is left to Python. */
const MAX_REPLY_CHARS = 16 * 1024 * 1024;
/** Most matches V8's `String.prototype.match` may build at once. */
const MAX_MATCH_LIST = 8 * 1024 * 1024;

/** The reply when V8 will not do a scan: Python's own `re` does it. */
export const FALLBACK_REPLY = '{"fallback":true}';

/**
 * What Python's `re.findall(pattern, text, flags)` returns, as the JSON reply the scaffold reads
 * (`{"ok": true, "groups": n, "value": [...]}`), or FALLBACK_REPLY when the pattern is outside
 * the translated subset, can match empty (after an empty match Python tries a longer one at the
 * same place, JavaScript moves on), or the result is too large to send.
 */
export function findAllMatches(text: string, pattern: string, flags: number): string {
  const translated = translatePythonRegex(pattern, flags);
  if (translated === undefined || translated.minLength === 0) return FALLBACK_REPLY;
  const regex = new RegExp(translated.source, translated.ignoreCase ? 'gi' : 'g');
  const groups = (new RegExp(`${translated.source}|`).exec('')?.length ?? 1) - 1;
  // V8's own `match` is about twice as fast as an exec loop, but builds the whole list first:
  // only when the matches cannot be too many.
  if (groups === 0 && text.length / translated.minLength <= MAX_MATCH_LIST) {
    return matchesOf(text, regex);
  }
  return execLoop(text, regex, groups);
}

/** Each match, or with groups each match's groups (a group that took no part is ''). */
function execLoop(text: string, regex: RegExp, groups: number): string {
  const values: (string | string[])[] = [];
  let chars = 0;
  for (;;) {
    const match = regex.exec(text);
    if (match === null) break;
    const value =
      groups === 0 ? match[0] : groups === 1 ? (match[1] ?? '') : groupsOf(match, groups);
    chars += typeof value === 'string' ? value.length + 3 : value.join('').length + 4 * groups;
    if (chars > MAX_REPLY_CHARS) return FALLBACK_REPLY;
    values.push(value);
  }
  return JSON.stringify({ ok: true, groups, value: values });
}

function groupsOf(match: RegExpExecArray, groups: number): string[] {
  const list: string[] = [];
  for (let index = 1; index <= groups; index++) list.push(match[index] ?? '');
  return list;
}

function matchesOf(text: string, regex: RegExp): string {
  const matches = text.match(regex) ?? [];
  let chars = 0;
  for (const match of matches) chars += match.length + 3;
  if (chars > MAX_REPLY_CHARS) return FALLBACK_REPLY;
  return JSON.stringify({ ok: true, groups: 0, value: matches });
}
