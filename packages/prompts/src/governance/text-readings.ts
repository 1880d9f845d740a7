/**
 * Named character references decoded here: the ones that spell ASCII punctuation and the
 * invisible or spacing characters. Any other name is left as written (a browser shows an unknown
 * reference literally, so it cannot hide markup).
 */
const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  num: '#',
  excl: '!',
  dollar: '$',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  equals: '=',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  hat: '^',
  lowbar: '_',
  underbar: '_',
  grave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  rcub: '}',
  rbrace: '}',
  tilde: '~',
  hyphen: '-',
  dash: '-',
  ndash: '–',
  mdash: '—',
  horbar: '―',
  nbsp: '\u00a0',
  ensp: '\u2002',
  emsp: '\u2003',
  thinsp: '\u2009',
  shy: '\u00ad',
  zwsp: '\u200b',
  zwnj: '\u200c',
  zwj: '\u200d',
  lrm: '\u200e',
  rlm: '\u200f',
  NewLine: '\n',
  Tab: '\t',
};

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g;
/** Rounds of decoding: `&amp;lt;` is `<` after two. */
const MAX_DECODING_ROUNDS = 4;

function decodeOnce(text: string): string {
  return text.replace(REFERENCE, (...match: string[]) => decodeReference(match));
}

function decodeReference([whole = '', decimal, hex, name]: readonly (
  | string
  | undefined
)[]): string {
  if (name !== undefined) {
    return NAMED_REFERENCES[name] ?? NAMED_REFERENCES[name.toLowerCase()] ?? whole;
  }
  const point = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? '', 16);
  // An out-of-range reference decodes to U+FFFD in HTML: it hides nothing.
  return point > 0x10ffff ? '\ufffd' : String.fromCodePoint(point);
}

/**
 * Every way `text` may be read once HTML character references are decoded (`&#73;`, `&#x49;`,
 * `&lt;`, with or without the semicolon, repeatedly: `&amp;lt;` is `<`). The first reading is
 * the text itself.
 */
export function decodedReadings(text: string): string[] {
  const readings = [text];
  let current = text;
  for (let round = 0; round < MAX_DECODING_ROUNDS; round += 1) {
    const next = decodeOnce(current);
    if (next === current) break;
    readings.push(next);
    current = next;
  }
  const percent = decodePercent(current);
  if (percent !== undefined) readings.push(percent);
  return readings;
}

// Two or more `%XX` escapes: URL encoding of words, not a lone "50%".
const PERCENT_RUN = /%[0-9a-fA-F]{2}[\s\S]*%[0-9a-fA-F]{2}/;

function decodePercent(text: string): string | undefined {
  if (!PERCENT_RUN.test(text)) return undefined;
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** ROT13: each basic Latin letter moved 13 places; applying it twice gives the text back. */
export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (letter) => {
    const base = letter <= 'Z' ? 65 : 97;
    return String.fromCharCode(((letter.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** The text backwards, by code point ("noitutitsnoc eht erongi"). */
export function reversed(text: string): string {
  return [...text].reverse().join('');
}

/** A run of base64, base64url or hex that decodes to readable text, and what it says. */
export interface EncodedTextFinding {
  encoding: 'base64' | 'hex';
  /** The run as written (at most 80 characters). */
  text: string;
  /** The decoded text (at most 80 characters). */
  decoded: string;
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}[ :]?){8,}/g;
/** Decoded text this long or longer, mostly letters and spaces, counts as readable. */
const MIN_READABLE_CHARS = 8;
const READABLE_SHARE = 0.85;

/**
 * The first run of base64 (standard or URL-safe) or hex in `text` that decodes to readable text
 * (valid UTF-8, mostly letters, digits, spaces and punctuation). A standing rule has no reason to
 * carry text only a decoder can read; ordinary long words, paths and hashes decode to noise and
 * pass.
 */
export function findEncodedText(text: string): EncodedTextFinding | undefined {
  for (const match of text.matchAll(BASE64_RUN)) {
    const decoded = readable(fromBase64(match[0]));
    if (decoded !== undefined) {
      return { encoding: 'base64', text: match[0].slice(0, 80), decoded: decoded.slice(0, 80) };
    }
  }
  for (const match of text.matchAll(HEX_RUN)) {
    const digits = match[0].replace(/[ :]/g, '');
    const bytes = Uint8Array.from(digits.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
    const decoded = readable(bytes);
    if (decoded !== undefined) {
      return { encoding: 'hex', text: match[0].slice(0, 80), decoded: decoded.slice(0, 80) };
    }
  }
  return undefined;
}

function fromBase64(run: string): Uint8Array | undefined {
  const standard = run.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  // Decoding may start at any of the first four characters (a run glued to a word).
  for (let skip = 0; skip < 4 && standard.length - skip >= 12; skip += 1) {
    const body = standard.slice(skip);
    const usable = body.slice(0, body.length - (body.length % 4));
    try {
      const binary = globalThis.atob(usable);
      const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
      if (readable(bytes) !== undefined) return bytes;
    } catch {
      // not base64 at this offset
    }
  }
  return undefined;
}

const FATAL_UTF8 = new TextDecoder('utf-8', { fatal: true });

function readable(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined || bytes.length < MIN_READABLE_CHARS) return undefined;
  let text: string;
  try {
    text = FATAL_UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  const characters = [...text];
  const plain = characters.filter((character) => /[\p{L}\p{N}\p{P}\p{Zs}]/u.test(character));
  const letters = characters.filter((character) => /\p{L}/u.test(character));
  if (plain.length / characters.length < READABLE_SHARE) return undefined;
  // Readable text has words: letters make up a good part of it.
  return letters.length >= characters.length / 2 ? text : undefined;
}
