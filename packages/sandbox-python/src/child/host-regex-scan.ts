import { translatePythonRegex } from './python-regex-subset.js';

/** Payloads shorter than this stay with Python's `re` (a scan there is quick enough). */
export const HOST_SCAN_MIN_CHARS = 1024 * 1024;
/** Most characters of one reply (the matches' JSON); a bigger result is left to Python. */
const MAX_REPLY_CHARS = 16 * 1024 * 1024;
/** Most matches V8's `String.prototype.match` may build at once. */
const MAX_MATCH_LIST = 8 * 1024 * 1024;

/** What the scaffold writes to the device for a scan (see `_host_findall` in scaffold.py). */
interface ScanRequest {
  scan: { payload: string; pattern: string; flags: number };
}

/** The reply when the host will not do a scan: Python's own `re` does it. */
const FALLBACK = '{"fallback":true}';

/**
 * `re.findall` over payloads on this thread's V8, for the interpreter thread: it keeps the UTF-8
 * bytes of the large ASCII text payloads it was booted with and decodes one the first time a scan
 * needs it. A request the scaffold writes to `/dev/rlm` as `{"scan": …}` is answered here,
 * without crossing to the host process; every other request is not this object's.
 */
export class HostRegexScan {
  readonly #bytes = new Map<string, Uint8Array>();
  readonly #texts = new Map<string, string>();
  readonly #decoder = new TextDecoder();

  /** Keeps a text payload for scans when it qualifies; says whether it did. */
  hold(name: string, bytes: Uint8Array, ascii: boolean): boolean {
    if (!ascii || bytes.length < HOST_SCAN_MIN_CHARS) return false;
    this.#bytes.set(name, bytes);
    return true;
  }

  /** The reply to a scan request, or `undefined` when the request is not a scan. */
  answer(request: string): string | undefined {
    if (!request.startsWith('{"scan":')) return undefined;
    let scan: ScanRequest['scan'];
    try {
      scan = (JSON.parse(request) as ScanRequest).scan;
    } catch {
      return FALLBACK;
    }
    const text = this.#text(String(scan?.payload));
    if (text === undefined || typeof scan.pattern !== 'string' || !Number.isInteger(scan.flags)) {
      return FALLBACK;
    }
    const translated = translatePythonRegex(scan.pattern, scan.flags);
    if (translated === undefined) return FALLBACK;
    const regex = new RegExp(translated.source, translated.ignoreCase ? 'gi' : 'g');
    // V8's own `match` is about twice as fast as an exec loop, but builds the whole list first:
    // only when the matches cannot be too many.
    if (translated.minLength > 0 && text.length / translated.minLength <= MAX_MATCH_LIST) {
      const groups = groupCount(regex);
      if (groups === 0) return matchesOf(text, regex);
    }
    return findAll(text, regex);
  }

  #text(name: string): string | undefined {
    const known = this.#texts.get(name);
    if (known !== undefined) return known;
    const bytes = this.#bytes.get(name);
    if (bytes === undefined) return undefined;
    const text = this.#decoder.decode(bytes);
    this.#bytes.delete(name);
    this.#texts.set(name, text);
    return text;
  }
}

/**
 * What Python's `findall` returns, as JSON: the matches, or with groups each match's groups (a
 * group that took no part is ''). After an empty match the search moves on one character, as
 * Python's does, so empty matches right after a non-empty one are kept, as in Python 3.7 on.
 */
function findAll(text: string, regex: RegExp): string {
  const groups = groupCount(regex);
  const values: (string | string[])[] = [];
  let chars = 0;
  for (;;) {
    const match = regex.exec(text);
    if (match === null) break;
    if (match[0] === '') regex.lastIndex += 1;
    const value =
      groups === 0 ? match[0] : groups === 1 ? (match[1] ?? '') : groupsOf(match, groups);
    chars += typeof value === 'string' ? value.length + 3 : value.join('').length + 4 * groups;
    if (chars > MAX_REPLY_CHARS) return FALLBACK;
    values.push(value);
  }
  return JSON.stringify({ ok: true, groups, value: values });
}

function groupsOf(match: RegExpExecArray, groups: number): string[] {
  const list: string[] = [];
  for (let index = 1; index <= groups; index++) list.push(match[index] ?? '');
  return list;
}

function groupCount(regex: RegExp): number {
  return (new RegExp(`${regex.source}|`).exec('')?.length ?? 1) - 1;
}

/** `findall` of a pattern without groups, by V8's `match`. */
function matchesOf(text: string, regex: RegExp): string {
  const matches = text.match(regex) ?? [];
  let chars = 0;
  for (const match of matches) chars += match.length + 3;
  if (chars > MAX_REPLY_CHARS) return FALLBACK;
  return JSON.stringify({ ok: true, groups: 0, value: matches });
}
