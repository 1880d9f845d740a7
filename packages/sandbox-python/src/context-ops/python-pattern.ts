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
      message: 'verbose patterns (re.X) are not supported by the context helpers; write the pattern on one line',
      details: { pattern },
    });
  }
  const flags = [...new Set(letters.replace(/[aLux]/g, ''))].join('');
  return { source: rewrite(source), flags };
}

/** Rewrites Python-only constructs outside escapes and character classes. */
function rewrite(source: string): string {
  let out = '';
  let inClass = false;
  for (let at = 0; at < source.length; at++) {
    const char = source[at];
    if (char === '\\') {
      const next = source[at + 1] ?? '';
      if (!inClass && next === 'A') out += '(?<![\\s\\S])';
      else if (!inClass && next === 'Z') out += '(?![\\s\\S])';
      else out += char + next;
      at += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      // A ']' right after '[' or '[^' is a literal in both syntaxes.
      if (source[at + 1] === '^') out += source[++at];
      if (source[at + 1] === ']') out += source[++at];
      continue;
    }
    if (source.startsWith('(?P<', at)) {
      out += '(?<';
      at += 3;
      continue;
    }
    const backReference = /^\(\?P=(\w+)\)/.exec(source.slice(at));
    if (backReference?.[1] !== undefined) {
      out += `\\k<${backReference[1]}>`;
      at += backReference[0].length - 1;
      continue;
    }
    out += char;
  }
  return out;
}
