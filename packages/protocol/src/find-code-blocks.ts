import { dedentBlock } from './dedent-block.js';

/** The fence tag the protocol runs by default. */
export const DEFAULT_CODE_LANGUAGES: readonly string[] = ['repl'];

export interface FindCodeBlocksOptions {
  /** Fence tags whose blocks are run. `repl` is always included; add e.g. `js` to opt in. */
  languages?: readonly string[];
}

const BACKTICK = '`';
const FENCE = '```';
/** What closes a block: a line starting with three backticks (a CR before it leaves the body). */
const CLOSING_FENCE = '\n```';

/** Where one block's code lies in the text, and where scanning resumes after its closing fence. */
interface FenceMatch {
  bodyStart: number;
  bodyEnd: number;
  end: number;
}

/** One block found in a response: its code and the lines its body spans there. */
export interface CodeBlockSpan {
  /** The code, as `findCodeBlocks` returns it (dedented). */
  code: string;
  /**
   * The first and last line of the response (1-based, inclusive) between the block's fences; an
   * empty block's two lines are the same.
   */
  startLine: number;
  endLine: number;
}

/**
 * Extracts the code of every fenced ```repl block in a model response, in order.
 *
 * A block opens with ```repl (optionally followed by spaces) and a newline, and ends at the first
 * newline followed by three backticks. An empty fence is no block; a fence holding one blank line
 * is one empty block. Tags are compared exactly (case-sensitive); the first tag in the order
 * `repl`, then `languages`, that opens a closed block wins.
 *
 * Time is linear in the text (times the total length of the tags): each opening is tried once,
 * and text already searched in vain for a closing fence is never searched again, so a response
 * full of unclosed fences costs one pass.
 *
 * @example
 * findCodeBlocks('Look:\n```repl\nprint(context.length)\n```'); // ['print(context.length)']
 */
export function findCodeBlocks(text: string, options: FindCodeBlocksOptions = {}): string[] {
  // Strings straight into the array: no line numbers (a second pass over a long response) and no
  // span object per block, which a response of many small blocks pays for.
  const blocks: string[] = [];
  scanBlocks(text, options, (bodyStart, bodyEnd) => {
    blocks.push(dedentBlock(text.slice(bodyStart, bodyEnd)));
  });
  return blocks;
}

/**
 * `findCodeBlocks` with the lines each block's body spans in the response, so a trajectory and
 * `rlm trace` can point at where in the model's text a block was written.
 *
 * @example
 * findCodeBlockSpans('Look:\n```repl\nprint(1)\n```'); // [{ code: 'print(1)', startLine: 3, endLine: 3 }]
 */
export function findCodeBlockSpans(
  text: string,
  options: FindCodeBlocksOptions = {},
): CodeBlockSpan[] {
  const lineAt = lineCounter(text);
  const blocks: CodeBlockSpan[] = [];
  scanBlocks(text, options, (bodyStart, bodyEnd) => {
    const startLine = lineAt(bodyStart);
    blocks.push({
      code: dedentBlock(text.slice(bodyStart, bodyEnd)),
      startLine,
      endLine: bodyEnd > bodyStart ? lineAt(bodyEnd - 1) : startLine,
    });
  });
  return blocks;
}

/** Calls `onBlock` with each block body's bounds in `text`, in order. */
function scanBlocks(
  text: string,
  options: FindCodeBlocksOptions,
  onBlock: (bodyStart: number, bodyEnd: number) => void,
): void {
  const tags = [...new Set(['repl', ...(options.languages ?? DEFAULT_CODE_LANGUAGES)])];
  const matchAt = fenceMatcher(text, tags);
  const tagMayStartWithBacktick = tags.some((tag) => tag.startsWith(BACKTICK));
  let from = 0;
  for (let open = text.indexOf(FENCE); open !== -1; open = text.indexOf(FENCE, from)) {
    if (!tagMayStartWithBacktick && text.startsWith(BACKTICK, open + FENCE.length)) {
      // In a run of backticks only the last three can open a block: skip to them.
      from = endOfBackticks(text, open + FENCE.length) - FENCE.length;
      continue;
    }
    const match = matchAt(open);
    if (match === null) {
      from = open + 1;
      continue;
    }
    onBlock(match.bodyStart, match.bodyEnd);
    from = match.end;
  }
}

/**
 * The 1-based line of a position, for positions asked in increasing order: newlines are counted
 * once, from where the last question left off, so all of a response's blocks cost one pass.
 */
function lineCounter(text: string): (index: number) => number {
  let line = 1;
  let counted = 0;
  return (index) => {
    for (
      let at = text.indexOf('\n', counted);
      at !== -1 && at < index;
      at = text.indexOf('\n', at + 1)
    ) {
      line++;
    }
    counted = Math.max(counted, index);
    return line;
  };
}

/** Reads the block whose opening fence starts at a given index, if one does. */
function fenceMatcher(text: string, tags: readonly string[]): (open: number) => FenceMatch | null {
  // After the tag: whitespace other than LF (CR included), then LF.
  const headerRest = /[^\S\n]*\r?\n/y;
  const closingFrom = closingFinder(text);
  return (open) => {
    for (const tag of tags) {
      const tagEnd = open + FENCE.length + tag.length;
      if (!text.startsWith(tag, open + FENCE.length)) continue;
      headerRest.lastIndex = tagEnd;
      if (!headerRest.test(text)) continue;
      const bodyStart = headerRest.lastIndex;
      const closing = closingFrom(bodyStart);
      // With no closing fence after this tag's header, a tag whose header ends earlier may have one.
      if (closing === -1) continue;
      const crlf = closing > bodyStart && text[closing - 1] === '\r';
      return {
        bodyStart,
        bodyEnd: crlf ? closing - 1 : closing,
        end: closing + CLOSING_FENCE.length,
      };
    }
    return null;
  };
}

/**
 * The index of the first closing fence at or after a position. Remembers the earliest position
 * found to have none after it, so unclosed openings do not each rescan the rest of the text.
 */
function closingFinder(text: string): (from: number) => number {
  let noneFrom = Number.POSITIVE_INFINITY;
  return (from) => {
    if (from >= noneFrom) return -1;
    const index = text.indexOf(CLOSING_FENCE, from);
    if (index === -1) noneFrom = from;
    return index;
  };
}

/** The index of the first character at or after `from` that is not a backtick. */
function endOfBackticks(text: string, from: number): number {
  let index = from;
  while (text.startsWith(BACKTICK, index)) index++;
  return index;
}
