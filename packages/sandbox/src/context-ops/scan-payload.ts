import type { JsonValue } from '@rlm/protocol';
import { CodePointOffsets } from './code-point-offsets.js';
import { literalPattern } from './literal-pattern.js';
import type { ScanOperation } from './scan-messages.js';
import {
  type Checkpoint,
  chunkBounds,
  countMatches,
  findAll,
  globalPattern,
  grep,
  lineRange,
  lineStarts,
} from './scan-operations.js';
import { readSharedText, type SharedText } from './shared-text.js';

/**
 * One payload a scan reads: shared bytes stay bytes until a scan needs the text (decoding is
 * cheap, holding a copy is not); the line index and code-point offsets are built on first use.
 */
export class ScanPayload {
  #source: string | SharedText;
  readonly #codePoints: boolean;
  #starts: number[] | undefined;
  #offsets: CodePointOffsets | undefined;

  constructor(source: string | SharedText, codePoints: boolean) {
    this.#source = source;
    this.#codePoints = codePoints;
  }

  get text(): string {
    if (typeof this.#source !== 'string') this.#source = readSharedText(this.#source);
    return this.#source;
  }

  get starts(): number[] {
    this.#starts ??= lineStarts(this.text);
    return this.#starts;
  }

  /** Code-point offsets for a Python payload; none (UTF-16 offsets) for a JavaScript one. */
  get offsets(): CodePointOffsets | undefined {
    if (!this.#codePoints) return undefined;
    this.#offsets ??= new CodePointOffsets(this.text);
    return this.#offsets;
  }

  /**
   * True when what a scan needs besides the text is built: the line index (`lines`) and, for a
   * Python payload, the code-point offsets (`offsets`). Building them reads the whole text.
   */
  indexed({ lines, offsets }: { lines: boolean; offsets: boolean }): boolean {
    return (
      (!lines || this.#starts !== undefined) &&
      (!offsets || !this.#codePoints || this.#offsets !== undefined)
    );
  }
}

/**
 * Runs `operation` when its time is known to be bounded without a watchdog: a literal pattern
 * (`indexOf`, linear in the text and its matches; `checkpoint` is called every so many matches and
 * may stop it by throwing), or `lines`/`chunk` once the line index is built (a binary search per
 * item, at most `maxItems` items). `undefined` when the scan could take longer (a regex that may
 * backtrack, or an index still to build): run it with `runScan` under a watchdog instead. The
 * value is what `runScan` gives.
 */
export function runBoundedScan(
  payload: ScanPayload,
  operation: ScanOperation,
  checkpoint: Checkpoint,
): { value: JsonValue } | undefined {
  switch (operation.op) {
    case 'count': {
      const literal = literalPattern(operation.source, operation.flags);
      if (literal === undefined) return undefined;
      return { value: countMatches(payload.text, literal, checkpoint) };
    }
    case 'find_all': {
      const literal = literalPattern(operation.source, operation.flags);
      if (literal === undefined || !payload.indexed({ lines: false, offsets: true })) {
        return undefined;
      }
      const value = findAll(payload.text, literal, {
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        checkpoint,
        ...withOffsets(payload),
      });
      return { value: value as unknown as JsonValue };
    }
    case 'grep': {
      const literal = literalPattern(operation.source, operation.flags);
      if (literal === undefined || !payload.indexed({ lines: true, offsets: false })) {
        return undefined;
      }
      const value = grep(payload.text, literal, {
        context: operation.context,
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        starts: payload.starts,
        checkpoint,
      });
      return { value: value as unknown as JsonValue };
    }
    case 'lines':
      return payload.indexed({ lines: true, offsets: false })
        ? { value: runScan(payload, operation) }
        : undefined;
    case 'chunk':
      return payload.indexed({ lines: true, offsets: true })
        ? { value: runScan(payload, operation) }
        : undefined;
  }
}

/** Runs one helper's scan on `payload` (the same work whichever thread runs it). */
export function runScan(payload: ScanPayload, operation: ScanOperation): JsonValue {
  const { text } = payload;
  switch (operation.op) {
    case 'grep':
      return grep(text, globalPattern(operation.source, operation.flags), {
        context: operation.context,
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        starts: payload.starts,
      }) as unknown as JsonValue;
    case 'find_all':
      return findAll(text, globalPattern(operation.source, operation.flags), {
        maxItems: operation.maxItems,
        maxChars: operation.maxChars,
        ...withOffsets(payload),
      }) as unknown as JsonValue;
    case 'count':
      return countMatches(text, globalPattern(operation.source, operation.flags));
    case 'lines':
      return lineRange(text, { ...operation, starts: payload.starts });
    case 'chunk':
      return chunkBounds(text, {
        size: operation.size,
        overlap: operation.overlap,
        maxItems: operation.maxItems,
        starts: payload.starts,
        ...withOffsets(payload),
      }) as unknown as JsonValue;
  }
}

function withOffsets(payload: ScanPayload): { offsets?: CodePointOffsets } {
  const offsets = payload.offsets;
  return offsets === undefined ? {} : { offsets };
}
