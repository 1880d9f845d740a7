import type { JsonValue } from '@rlm/protocol';
import { CodePointOffsets } from './code-point-offsets.js';
import type { ScanOperation } from './scan-messages.js';
import {
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
