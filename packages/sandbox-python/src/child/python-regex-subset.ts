/**
 * A JavaScript regex that finds exactly what a Python `re` pattern finds, for the patterns where
 * that can be shown: ASCII patterns over ASCII text, in a conservative subset of the syntax. On
 * ASCII text Python's Unicode classes (`\d`, `\w`, `\b`) and case folding agree with JavaScript's
 * non-Unicode ones; what differs is written out (`\s` includes \x1c–\x1f in Python, `.` excludes
 * only \n, `^`/`$`/`\A`/`\Z` become lookarounds so \r is never a line end). Anything else —
 * backreferences, inline flags, verbose mode, a quantified group (the usual source of runaway
 * backtracking, which the host cannot interrupt as Python can), set syntax Python warns about, a
 * character outside ASCII — is `undefined`: the caller then lets Python's own `re` do the work.
 */

/** `re` flag bits (re.IGNORECASE, re.MULTILINE, re.DOTALL, re.UNICODE, re.ASCII). */
const IGNORECASE = 2;
const MULTILINE = 8;
const DOTALL = 16;
const ASCII = 256;
const ALLOWED_FLAGS = IGNORECASE | MULTILINE | DOTALL | 32 | ASCII;

/** Python's `\s` on ASCII text (str.isspace: includes the separators \x1c–\x1f). */
const SPACE_CHARS = '\\t\\n\\v\\f\\r \\x1c-\\x1f';
/** Python's `\s` under re.ASCII. */
const ASCII_SPACE_CHARS = '\\t\\n\\v\\f\\r ';
const ANY = '[\\s\\S]';
const GROUP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LITERAL_ESCAPES = new Set(['n', 't', 'r', 'f', 'v']);

export interface TranslatedRegex {
  source: string;
  ignoreCase: boolean;
  /** The fewest characters a match has (so at most `text.length / minLength` matches). */
  minLength: number;
}

interface Group {
  lookaround: boolean;
}

/** The shortest match so far of the innermost group (or the whole pattern): its alternatives. */
interface Lengths {
  current: number;
  best: number;
  lastAtom: number;
}

/** Returns the equivalent JavaScript source, or `undefined` when the pattern is outside the subset. */
export function translatePythonRegex(pattern: string, flags: number): TranslatedRegex | undefined {
  if ((flags & ~ALLOWED_FLAGS) !== 0 || !/^[\x20-\x7e\t\n]*$/.test(pattern)) return undefined;
  const translation = new Translation(pattern, flags);
  while (translation.index < pattern.length) {
    if (!translation.step()) return undefined;
  }
  return translation.finish();
}

/** One pass over a pattern: the JavaScript written so far, the open groups, the shortest match. */
class Translation {
  index = 0;
  #out = '';
  readonly #groups: Group[] = [];
  readonly #lengths: Lengths[] = [{ current: 0, best: Number.POSITIVE_INFINITY, lastAtom: 0 }];
  // What a quantifier may follow: a single character, class or `.` (never a group or assertion).
  #quantifiable = false;
  readonly #ignoreCase: boolean;
  /** What `\s` stands for under these flags. */
  readonly #space: string;
  readonly #mode: { multiline: boolean; dotAll: boolean };

  constructor(
    readonly pattern: string,
    flags: number,
  ) {
    this.#ignoreCase = (flags & IGNORECASE) !== 0;
    this.#space = (flags & ASCII) !== 0 ? ASCII_SPACE_CHARS : SPACE_CHARS;
    this.#mode = { multiline: (flags & MULTILINE) !== 0, dotAll: (flags & DOTALL) !== 0 };
  }

  /** Translates the token at `index`; false when it is outside the subset. */
  step(): boolean {
    const char = this.pattern.charAt(this.index);
    if (char === '\\') return this.#escape();
    if (char === '[') return this.#set();
    if (char === '(') return this.#open();
    if (char === ')') return this.#close();
    if ('*+?{'.includes(char)) return this.#quantifier();
    this.#emit(plainAtom(char, this.#mode), this.index + 1);
    this.#quantifiable = char !== '^' && char !== '$' && char !== '|';
    if (char === '|') {
      this.#top().best = Math.min(this.#top().best, this.#top().current);
      this.#top().current = 0;
    } else {
      this.#atom(this.#quantifiable ? 1 : 0);
    }
    return true;
  }

  finish(): TranslatedRegex | undefined {
    if (this.#groups.length > 0) return undefined;
    try {
      new RegExp(this.#out, 'g');
    } catch {
      return undefined;
    }
    const top = this.#top();
    return {
      source: this.#out,
      ignoreCase: this.#ignoreCase,
      minLength: Math.min(top.best, top.current),
    };
  }

  #escape(): boolean {
    const translated = atomEscape(this.pattern.charAt(this.index + 1), this.#space);
    if (translated === undefined) return false;
    this.#emit(translated.source, this.index + 2);
    this.#quantifiable = translated.quantifiable;
    this.#atom(translated.quantifiable ? 1 : 0);
    return true;
  }

  #set(): boolean {
    const set = characterSet(this.pattern, this.index + 1, {
      ignoreCase: this.#ignoreCase,
      space: this.#space,
    });
    if (set === undefined) return false;
    this.#emit(set.source, set.end);
    this.#quantifiable = true;
    this.#atom(1);
    return true;
  }

  #open(): boolean {
    const open = groupOpening(this.pattern, this.index, this.#groups);
    if (open === undefined) return false;
    this.#emit(open.source, open.end);
    this.#groups.push({ lookaround: open.lookaround });
    this.#lengths.push({ current: 0, best: Number.POSITIVE_INFINITY, lastAtom: 0 });
    this.#quantifiable = false;
    return true;
  }

  #close(): boolean {
    const group = this.#groups.pop();
    const inner = this.#lengths.pop();
    if (group === undefined || inner === undefined) return false;
    this.#emit(')', this.index + 1);
    this.#atom(group.lookaround ? 0 : Math.min(inner.best, inner.current));
    this.#quantifiable = false;
    return true;
  }

  #quantifier(): boolean {
    if (!this.#quantifiable) return false;
    const quantifier = readQuantifier(this.pattern, this.index);
    if (quantifier === undefined) return false;
    this.#emit(quantifier.source, quantifier.end);
    this.#quantifiable = false;
    this.#top().current += this.#top().lastAtom * (quantifier.min - 1);
    return true;
  }

  #emit(source: string, next: number): void {
    this.#out += source;
    this.index = next;
  }

  #atom(size: number): void {
    this.#top().current += size;
    this.#top().lastAtom = size;
  }

  #top(): Lengths {
    return this.#lengths[this.#lengths.length - 1] as Lengths;
  }
}

function plainAtom(char: string, mode: { multiline: boolean; dotAll: boolean }): string {
  if (char === '.') return mode.dotAll ? ANY : '[^\\n]';
  if (char === '^') return mode.multiline ? '(?<![^\\n])' : '(?<![\\s\\S])';
  if (char === '$') return mode.multiline ? '(?![^\\n])' : '(?=\\n?(?![\\s\\S]))';
  if (char === '|') return '|';
  return literal(char);
}

/** A literal character, escaped when it is punctuation (an identity escape in JavaScript). */
function literal(char: string): string {
  return /[A-Za-z0-9]/.test(char) || char.charCodeAt(0) < 0x21 ? char : `\\${char}`;
}

function atomEscape(
  next: string,
  space: string,
): { source: string; quantifiable: boolean } | undefined {
  if ('dDwW'.includes(next) && next !== '') return { source: `\\${next}`, quantifiable: true };
  if (next === 's') return { source: `[${space}]`, quantifiable: true };
  if (next === 'S') return { source: `[^${space}]`, quantifiable: true };
  if (next === 'b' || next === 'B') return { source: `\\${next}`, quantifiable: false };
  if (next === 'A') return { source: '(?<![\\s\\S])', quantifiable: false };
  if (next === 'Z') return { source: '(?![\\s\\S])', quantifiable: false };
  if (LITERAL_ESCAPES.has(next)) return { source: `\\${next}`, quantifiable: true };
  if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e ]$/.test(next)) {
    return { source: literal(next), quantifiable: true };
  }
  return undefined;
}

function groupOpening(
  pattern: string,
  index: number,
  groups: Group[],
): { source: string; lookaround: boolean; end: number } | undefined {
  const insideLookaround = groups.some((group) => group.lookaround);
  const rest = pattern.slice(index);
  for (const opening of ['(?:', '(?=', '(?!', '(?<=', '(?<!']) {
    if (rest.startsWith(opening)) {
      return { source: opening, lookaround: opening !== '(?:', end: index + opening.length };
    }
  }
  // A capture inside a lookaround: JavaScript matches lookbehinds backwards, captures may differ.
  if (insideLookaround) return undefined;
  if (rest.startsWith('(?P<')) {
    const close = rest.indexOf('>');
    const name = close < 0 ? '' : rest.slice(4, close);
    if (!GROUP_NAME.test(name)) return undefined;
    return { source: `(?<${name}>`, lookaround: false, end: index + close + 1 };
  }
  if (rest.startsWith('(?')) return undefined;
  return { source: '(', lookaround: false, end: index + 1 };
}

function readQuantifier(
  pattern: string,
  index: number,
): { source: string; min: number; end: number } | undefined {
  const char = pattern.charAt(index);
  const base =
    char === '{'
      ? braces(pattern, index)
      : { source: char, min: char === '+' ? 1 : 0, end: index + 1 };
  if (base === undefined) return undefined;
  const after = pattern.charAt(base.end);
  if (after === '?') return { ...base, source: `${base.source}?`, end: base.end + 1 };
  // Possessive quantifiers (`a*+`) and repeated ones (`a**`) are left to Python.
  if (after === '*' || after === '+' || after === '{') return undefined;
  return base;
}

/** `{m}`, `{m,}`, `{m,n}` or Python's `{,n}` (JavaScript's `{0,n}`). */
function braces(
  pattern: string,
  index: number,
): { source: string; min: number; end: number } | undefined {
  const bounds = /^\{(\d{0,5})(,(\d{0,5}))?\}/.exec(pattern.slice(index));
  // A `{` that is no quantifier is a literal in Python; left to Python.
  if (bounds === null || (bounds[1] === '' && bounds[2] === undefined)) return undefined;
  const min = bounds[1] === '' ? '0' : (bounds[1] ?? '0');
  const max = bounds[2] === undefined ? min : (bounds[3] ?? '');
  if (max !== '' && Number(min) > Number(max)) return undefined;
  const source = bounds[2] === undefined ? `{${min}}` : `{${min},${max}}`;
  return { source, min: Number(min), end: index + (bounds[0]?.length ?? 0) };
}

interface SetMode {
  ignoreCase: boolean;
  /** What `\s` stands for. */
  space: string;
}

/** A `[...]` set from just after its `[`: the translated set and where it ends. */
function characterSet(
  pattern: string,
  start: number,
  mode: SetMode,
): { source: string; end: number } | undefined {
  const negated = pattern.charAt(start) === '^';
  let index = negated ? start + 1 : start;
  // `[]…]` is a literal `]` in Python and an empty set in JavaScript.
  if (pattern.charAt(index) === ']') return undefined;
  let out = '';
  while (index < pattern.length && pattern.charAt(index) !== ']') {
    const item = setItem(pattern, index, mode);
    if (item === undefined) return undefined;
    out += item.source;
    index = item.end;
  }
  if (index >= pattern.length) return undefined;
  return { source: `[${negated ? '^' : ''}${out}]`, end: index + 1 };
}

/** One member of a set or one range `a-z`. */
function setItem(
  pattern: string,
  index: number,
  mode: SetMode,
): { source: string; end: number } | undefined {
  // Python warns (FutureWarning, on stderr) about what may become set operations.
  const pair = pattern.slice(index, index + 2);
  if (pattern.charAt(index) === '[' || ['--', '&&', '~~', '||'].includes(pair)) return undefined;
  const first = setMember(pattern, index, mode.space);
  if (first === undefined) return undefined;
  const dash = first.end;
  const isRange =
    pattern.charAt(dash) === '-' && dash + 1 < pattern.length && pattern.charAt(dash + 1) !== ']';
  if (!isRange) return first;
  const last = setMember(pattern, dash + 1, mode.space);
  if (first.code === undefined || last?.code === undefined) return undefined;
  if (first.code > last.code || (mode.ignoreCase && !foldsAlike(first.code, last.code))) {
    return undefined;
  }
  return { source: `${first.source}-${last.source}`, end: last.end };
}

/** One member of a set: a character (with its code, so it can bound a range) or a class escape. */
function setMember(
  pattern: string,
  index: number,
  space: string,
): { source: string; code?: number; end: number } | undefined {
  const char = pattern.charAt(index);
  if (char !== '\\') return { source: literal(char), code: char.charCodeAt(0), end: index + 1 };
  const next = pattern.charAt(index + 1);
  if (next !== '' && 'dDwW'.includes(next)) return { source: `\\${next}`, end: index + 2 };
  if (next === 's') return { source: space, end: index + 2 };
  if (LITERAL_ESCAPES.has(next)) {
    const code = { n: 10, t: 9, r: 13, f: 12, v: 11 }[next as 'n'];
    return { source: `\\${next}`, code, end: index + 2 };
  }
  if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e ]$/.test(next)) {
    return { source: literal(next), code: next.charCodeAt(0), end: index + 2 };
  }
  return undefined;
}

/**
 * Whether a case-insensitive range means the same in both engines: within one run of letters of
 * one case, or holding no letter at all (a range across cases folds differently).
 */
function foldsAlike(low: number, high: number): boolean {
  const within = (from: string, to: string) =>
    low >= from.charCodeAt(0) && high <= to.charCodeAt(0);
  if (within('a', 'z') || within('A', 'Z')) return true;
  const letters = [
    ['A', 'Z'],
    ['a', 'z'],
  ];
  return letters.every(
    ([from, to]) => high < (from ?? '').charCodeAt(0) || low > (to ?? '').charCodeAt(0),
  );
}
