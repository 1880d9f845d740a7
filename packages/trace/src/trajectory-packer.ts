import type { JsonValue, TrajectoryRecord } from '@rlm/protocol';
import { ContextSliceIndex, SLICE_BLOCK_CHARS } from './context-slice-index.js';
import { deltaKey, recordDelta, withoutCallId } from './record-delta.js';
import type {
  ContextDeclaration,
  PackedLine,
  PackedPart,
  SingleTrajectoryLine,
} from './stored-line.js';
import { textHash } from './text-hash.js';

/**
 * Strings shorter than this are written as they are: a reference or a hash would save little.
 * Twice `SLICE_BLOCK_CHARS`, so a slice of a context this long always covers a whole indexed
 * block and is found.
 * @default 256
 */
export const DEFAULT_PACK_MIN_CHARS = 2 * SLICE_BLOCK_CHARS;

/**
 * Literal text inside a packed string this long or longer is written once and by hash after (a
 * sub-call's instruction before its chunk repeats in every prompt).
 * @default 64
 */
export const DEFAULT_PACK_MIN_TEXT_CHARS = 64;

/** Options of `TrajectoryPacker`. */
export interface TrajectoryPackerOptions {
  /** The run's payloads in order: `context`, then the extra `contexts`. Their strings (a string payload, or the strings of an array payload) are what slices are taken from. */
  payloads?: readonly JsonValue[];
  /** Strings shorter than this are written as they are. @default DEFAULT_PACK_MIN_CHARS */
  minChars?: number;
  /** @default DEFAULT_PACK_MIN_TEXT_CHARS */
  minTextChars?: number;
}

type Path = (string | number)[];

/**
 * `value` as `JSON.parse(JSON.stringify(value))` would give it (undefined members dropped,
 * non-finite numbers `null`, `toJSON` applied), without serializing: strings are shared, not
 * copied, which matters for records carrying chunks of a big context.
 */
function plainJson(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'object') return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  }
  if (Array.isArray(value)) return value.map((item) => plainJson(item) ?? null);
  const copy: Record<string, JsonValue> = {};
  for (const key of Object.keys(value)) {
    const item = plainJson((value as Record<string, unknown>)[key]);
    if (item !== undefined) copy[key] = item;
  }
  return copy;
}

/** A context slices can be taken from, and its declaration once computed. */
interface IndexedContext {
  where: Pick<ContextDeclaration, 'payload' | 'element'>;
  text: string;
  /** Its `textHash`, when the writer already knew it (see `knowPayloadHashes`). */
  hash?: string;
}

/**
 * Turns records into the lines of a format-4 trajectory: every string of at least `minChars`
 * is written as slices of the run's contexts (context, length, and the offset, or the gap from
 * where the previous slice of that context ended) and literal text, and a long literal is
 * written with its hash the first time and as the hash alone after. A record keeps what changed
 * since the previous one of its kind, changed integers (timestamps, durations) and its call
 * number as steps from that one's: in a batch of sub-calls these are the same small numbers
 * line after line, which a group's compression all but removes. Still one line per record, each declaring the contexts it is the first to use, so every prefix of
 * the file reads. One packer per file: a file continued by a new packer (a resumed run)
 * declares again what it uses, which reads the same.
 */
export class TrajectoryPacker {
  readonly #minChars: number;
  readonly #minTextChars: number;
  readonly #contexts: IndexedContext[] = [];
  readonly #index: ContextSliceIndex;
  readonly #declared = new Set<number>();
  readonly #written = new Set<string>();
  readonly #last = new Map<string, Record<string, JsonValue>>();
  /** The call of the last record of each kind that had one: the next one's `callDelta` is from it. */
  readonly #calls = new Map<string, number>();
  /** Where the last slice of each context ended: the next one's `gap` is from it. */
  readonly #sliceEnds = new Map<number, number>();

  constructor({
    payloads = [],
    minChars = DEFAULT_PACK_MIN_CHARS,
    minTextChars = DEFAULT_PACK_MIN_TEXT_CHARS,
  }: TrajectoryPackerOptions = {}) {
    this.#minChars = minChars;
    this.#minTextChars = minTextChars;
    for (const [payload, value] of payloads.entries()) {
      if (typeof value === 'string') this.#addContext(value, { payload });
      else if (Array.isArray(value)) {
        for (const [element, item] of value.entries()) {
          if (typeof item === 'string') this.#addContext(item, { payload, element });
        }
      }
    }
    this.#index = new ContextSliceIndex(this.#contexts.map((context) => context.text));
  }

  /**
   * The line that stands for `record`: what changed since the previous record of its kind, its
   * long strings packed; the record itself when it is the first of its kind and has no long
   * string.
   */
  pack(record: TrajectoryRecord): SingleTrajectoryLine {
    const { record: json, call } = withoutCallId(plainJson(record) as Record<string, JsonValue>);
    const key = deltaKey(record);
    const base = this.#last.get(key);
    this.#last.set(key, json);
    const { set, unset, add } =
      base === undefined
        ? { set: json, unset: [], add: {} }
        : recordDelta(base, json, { integers: true });
    const previousCall = base === undefined ? undefined : this.#calls.get(key);
    if (call !== undefined) this.#calls.set(key, call);
    const contexts: ContextDeclaration[] = [];
    const strings: NonNullable<PackedLine['strings']> = [];
    const packed = this.#walk(set, [], (path, text) => {
      strings.push({ path, parts: this.#parts(text, contexts) });
    });
    if (base === undefined && call === undefined && strings.length === 0) return record;
    return {
      kind: 'packed',
      ...(base === undefined ? {} : { of: key }),
      ...(call === undefined
        ? {}
        : previousCall === undefined
          ? { call }
          : { callDelta: call - previousCall }),
      ...(contexts.length === 0 ? {} : { contexts }),
      record: packed as Record<string, unknown>,
      ...(unset.length === 0 ? {} : { unset }),
      ...(Object.keys(add).length === 0 ? {} : { add }),
      ...(strings.length === 0 ? {} : { strings }),
    };
  }

  /**
   * The `textHash` of each string payload, in payload order, when the writer has them already
   * (a run-start event's context hashes): a context's declaration then needs no second pass over
   * a text of many megabytes. A hash is taken only for a string payload of the given `length`.
   */
  knowPayloadHashes(hashes: readonly ({ hash: string; length: number } | undefined)[]): void {
    for (const context of this.#contexts) {
      const known = context.where.element === undefined ? hashes[context.where.payload] : undefined;
      if (known !== undefined && known.length === context.text.length) context.hash = known.hash;
    }
  }

  #addContext(text: string, where: IndexedContext['where']): void {
    // A context shorter than a packed string cannot hold a slice worth referencing.
    if (text.length >= this.#minChars) this.#contexts.push({ where, text });
  }

  #walk(value: JsonValue, path: Path, onLong: (path: Path, text: string) => void): JsonValue {
    if (typeof value === 'string') {
      if (value.length < this.#minChars) return value;
      onLong(path, value);
      return '';
    }
    if (Array.isArray(value))
      return value.map((item, at) => this.#walk(item, [...path, at], onLong));
    if (value === null || typeof value !== 'object') return value;
    const copy: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) copy[key] = this.#walk(item, [...path, key], onLong);
    }
    return copy;
  }

  #parts(text: string, contexts: ContextDeclaration[]): PackedPart[] {
    const parts: PackedPart[] = [];
    let at = 0;
    for (const match of this.#index.matches(text)) {
      if (match.start > at) parts.push(this.#literal(text.slice(at, match.start)));
      this.#declare(match.context, contexts);
      // No hash of its own: the context's declaration names the whole context by hash (format 3).
      // Placed after the previous slice of its context once there is one (format 4).
      const end = this.#sliceEnds.get(match.context);
      const { context, length } = match;
      parts.push(
        end === undefined
          ? { context, offset: match.offset, length }
          : { context, gap: match.offset - end, length },
      );
      this.#sliceEnds.set(context, match.offset + length);
      at = match.start + match.length;
    }
    if (at < text.length) parts.push(this.#literal(text.slice(at)));
    return parts;
  }

  #literal(text: string): PackedPart {
    if (text.length < this.#minTextChars) return text;
    const hash = textHash(text);
    if (this.#written.has(hash)) return { text: hash };
    this.#written.add(hash);
    return { text: hash, value: text };
  }

  #declare(index: number, contexts: ContextDeclaration[]): void {
    const context = this.#contexts[index];
    if (context === undefined || this.#declared.has(index)) return;
    this.#declared.add(index);
    contexts.push({
      index,
      ...context.where,
      length: context.text.length,
      hash: context.hash ?? textHash(context.text),
    });
  }
}
