import { RlmError } from '@rlm/protocol';

const INLINE_FLAGS = /^\(\?([aiLmsux]+)\)/;

/**
 * Turns a Python `re` pattern into the JavaScript pattern the host scans with. The two syntaxes
 * agree on everyday patterns; this rewrites what differs: `(?P<name>…)` and `(?P=name)` named
 * groups, `\A` and `\Z` anchors, and leading inline flags such as `(?i)`. Verbose mode (`re.X`)
 * has no JavaScript counterpart and is refused.
 *
 * @throws RlmError `sandbox.invalid_pattern`
 */
export function pythonPatternToJs(
  pattern: string,
  pythonFlags: string,
): { source: string; flags: string } {
  let source = pattern;
  let letters = pythonFlags;
  const inline = INLINE_FLAGS.exec(source);
  if (inline?.[1] !== undefined) {
    letters += inline[1];
    source = source.slice(inline[0].length);
  }
  if (letters.includes('x')) {
    throw new RlmError({
      code: 'sandbox.invalid_pattern',
      message:
        'verbose patterns (re.X) are not supported by the context helpers; write the pattern on one line',
      details: { pattern },
    });
  }
  const flags = [...new Set(letters.replace(/[aLux]/g, ''))].join('');
  return { source: rewrite(source), flags };
}

/** What replaces a Python-only escape outside a character class (`\A`, `\Z`). */
const ANCHORS: Record<string, string> = { A: '(?<![\\s\\S])', Z: '(?![\\s\\S])' };

/** Rewrites Python-only constructs outside escapes and character classes. */
function rewrite(source: string): string {
  let out = '';
  let inClass = false;
  for (let at = 0; at < source.length; ) {
    const token: Token = inClass ? classToken(source, at) : patternToken(source, at);
    out += token.text;
    at += token.length;
    inClass = token.inClass;
  }
  return out;
}

interface Token {
  text: string;
  length: number;
  /** Whether the scan is inside a character class after this token. */
  inClass: boolean;
}

/** One token inside a character class: copied as is (escapes included). */
function classToken(source: string, at: number): Token {
  const char = source[at] ?? '';
  if (char === '\\') return { text: source.slice(at, at + 2), length: 2, inClass: true };
  return { text: char, length: 1, inClass: char !== ']' };
}

/** One token outside character classes, rewritten when Python spells it differently. */
function patternToken(source: string, at: number): Token {
  const char = source[at] ?? '';
  if (char === '\\') {
    const next = source[at + 1] ?? '';
    return { text: ANCHORS[next] ?? char + next, length: 2, inClass: false };
  }
  if (char === '[') {
    // A ']' right after '[' or '[^' is a literal in both syntaxes.
    const opening = /^\[\^?\]?/.exec(source.slice(at))?.[0] ?? '[';
    return { text: opening, length: opening.length, inClass: true };
  }
  const group = pythonGroup(source.slice(at, at + 200));
  if (group !== undefined) return { text: group.replacement, length: group.length, inClass: false };
  return { text: char, length: 1, inClass: false };
}

/** A `(?P<name>` opening or `(?P=name)` backreference at the start of `text`. */
function pythonGroup(text: string): { replacement: string; length: number } | undefined {
  if (text.startsWith('(?P<')) return { replacement: '(?<', length: 4 };
  const backReference = /^\(\?P=(\w+)\)/.exec(text);
  if (backReference?.[1] === undefined) return undefined;
  return { replacement: `\\k<${backReference[1]}>`, length: backReference[0].length };
}
