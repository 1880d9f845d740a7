import { fromCodeUnits, toCodeUnits } from './code-units.js';

const FENCE = '```';
const CLOSING_FENCE = '\n```';
const LF = 0x0a;
const SPACE = 0x20;

/**
 * Blanks out fenced code (every code unit but LF becomes a space, so indices and line starts are
 * kept) so that markers written as code are never read as text answers. `text` uses LF line
 * breaks. A fence opens at three backticks with the rest of that line as its info string, and
 * closes at the first later line starting with three backticks; an unclosed fence hides nothing.
 *
 * One pass: once an opening finds no closing fence, no later opening can (its body starts no
 * earlier), so scanning stops there instead of retrying from every backtick. Blanking works on
 * code units, so a response of many tiny fences costs no more than one long fence.
 */
export function hideFencedCode(text: string): string {
  let codes: Uint16Array | null = null;
  let from = 0;
  for (let open = text.indexOf(FENCE); open !== -1; open = text.indexOf(FENCE, from)) {
    const headerEnd = text.indexOf('\n', open + FENCE.length);
    if (headerEnd === -1) break;
    const closing = text.indexOf(CLOSING_FENCE, headerEnd + 1);
    if (closing === -1) break;
    from = closing + CLOSING_FENCE.length;
    codes ??= toCodeUnits(text);
    for (let index = open; index < from; index++) {
      if (codes[index] !== LF) codes[index] = SPACE;
    }
  }
  return codes === null ? text : fromCodeUnits(codes);
}
