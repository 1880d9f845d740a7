import { splitLines, visibleText } from './fold-text.js';

/** A piece of Markdown or HTML that would render as a heading, a rule or a hidden boundary. */
export interface MarkupBoundaryFinding {
  /** 1-based line number in the text. */
  line: number;
  /** What it renders as. */
  what:
    | 'Markdown heading'
    | 'setext heading underline'
    | 'rule or separator line'
    | 'HTML comment or declaration'
    | 'HTML tag'
    | 'chat template token';
  /** The offending text (at most 80 characters). */
  text: string;
}

// `#` to `######` then a space or the end of the line: a heading in every Markdown dialect.
const ATX_HEADING = /^[ \t]*#{1,6}(?:[ \t]|$)/u;
// A line of only `=` or only `-` under a paragraph line makes that line a heading (setext).
const SETEXT_UNDERLINE = /^[ \t]*(?:=+|-+)[ \t]*$/u;
// Three or more punctuation or symbol characters and nothing else: `---`, `***`, `___`, `===`,
// `———`, `═══`, `• • •`… a thematic break in Markdown or a boundary to the eye. Backticks and
// tildes are left out: a line of them is a code fence, which cannot leave the quoted block.
const RULE_LINE = /^[ \t]*(?:(?![`~])[\p{P}\p{S}][ \t]*){3,}$/u;
// The delimiter row of a Markdown table (`|---|:--:|`) renders as part of the table, not as a rule.
const TABLE_DELIMITER = /^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$/u;
const COMMENT_OR_DECLARATION = /<!|<\?|-->/u;
const CHAT_TOKEN = /<\||\|>/u;
const TAG = /<\/?([A-Za-z][\w:.-]*)([^<>]*)(>|$)/gu;
/**
 * Inline formatting that changes how words look, never the structure around them. Allowed
 * without attributes only: an attribute can hide text (`style`, `hidden`) or label a block.
 */
const INLINE_TAGS = new Set([
  'b',
  'i',
  'em',
  'strong',
  'code',
  'kbd',
  'samp',
  'var',
  'br',
  'sub',
  'sup',
  'u',
  'del',
  'ins',
  'mark',
  'small',
]);

/**
 * Finds markup that would render as structure in Markdown or HTML, where a mutable layer may
 * only hold quoted prose: an ATX heading (`# …`), a setext underline (`===` or `---` under a
 * line), a rule or separator line (`---`, `***`, `═══`), an HTML comment, declaration or
 * processing instruction, any HTML or XML tag other than attribute-less inline formatting
 * (`<b>`, `<code>`, `<br>`…), so `<h1>`…`<h6>`, `<hr>`, `<layer id="1">` and `<system>` are all
 * refused, and chat-template tokens (`<|…|>`). Run it on every reading of the text (character
 * references decoded too): `&lt;h1&gt;` renders as a heading once decoded twice.
 */
export function findMarkupBoundary(text: string): MarkupBoundaryFinding | undefined {
  const lines = splitLines(visibleText(text));
  let previousBlank = true;
  for (const [index, line] of lines.entries()) {
    const finding = lineFinding(line, previousBlank);
    if (finding !== undefined) {
      return { line: index + 1, what: finding.what, text: finding.text.trim().slice(0, 80) };
    }
    previousBlank = line.trim() === '';
  }
  return findTag(lines.join('\n'));
}

function lineFinding(
  line: string,
  previousBlank: boolean,
): { what: MarkupBoundaryFinding['what']; text: string } | undefined {
  if (ATX_HEADING.test(line)) return { what: 'Markdown heading', text: line };
  if (!previousBlank && SETEXT_UNDERLINE.test(line)) {
    return { what: 'setext heading underline', text: line };
  }
  if (RULE_LINE.test(line) && !TABLE_DELIMITER.test(line))
    return { what: 'rule or separator line', text: line };
  if (COMMENT_OR_DECLARATION.test(line)) return { what: 'HTML comment or declaration', text: line };
  if (CHAT_TOKEN.test(line)) return { what: 'chat template token', text: line };
  return undefined;
}

// Tags can span lines (`<h1\nclass="x">`), so they are looked for in the whole text.
function findTag(text: string): MarkupBoundaryFinding | undefined {
  for (const match of text.matchAll(TAG)) {
    const name = (match[1] ?? '').toLowerCase();
    const attributes = (match[2] ?? '').replace(/\/\s*$/u, '').trim();
    if (INLINE_TAGS.has(name) && attributes === '' && match[3] === '>') continue;
    // "a <b" at the very end of a line is a comparison, unless it names a structural tag.
    if (match[3] !== '>' && !/^(?:h[1-6]|hr|!--)$/u.test(name)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    return { line, what: 'HTML tag', text: match[0].slice(0, 80) };
  }
  return undefined;
}
