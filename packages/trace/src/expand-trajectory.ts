import {
  describeIssues,
  type JsonValue,
  RlmError,
  type TrajectoryRecord,
  trajectoryRecordSchema,
} from '@rlm/protocol';
import { groupedLines } from './line-group.js';
import { addIntegers, applyDelta, deltaKey, withCallId, withoutCallId } from './record-delta.js';
import {
  type ContextDeclaration,
  type PackedLine,
  type PackedPart,
  type SingleTrajectoryLine,
  type StoredTrajectoryLine,
  singleTrajectoryLineSchema,
} from './stored-line.js';
import { textHash } from './text-hash.js';

/** Options of reading a trajectory whose lines refer to contexts. */
export interface ExpandTrajectoryOptions {
  /**
   * The recorded run's payloads in order (`context`, then the extra `contexts`): references to
   * slices of them are expanded and checked against the recorded hashes. A trajectory that refers
   * to none reads without them.
   */
  payloads?: readonly JsonValue[] | undefined;
  /**
   * What a reference to a context that was not given (or is not the recorded one) becomes:
   * `error` throws `trace.context_missing` naming it; `placeholder` writes a bracketed note
   * naming the context and the slice instead (for readers that only need the events, and views
   * that show what they can).
   * @default 'placeholder' without `payloads`, 'error' with them
   */
  missingContext?: 'error' | 'placeholder';
}

type SlicePart = Exclude<PackedPart, string | { text: string }>;

interface DeclaredContext {
  line: ContextDeclaration;
  /** The context's text when the reader holds the recorded one. */
  text: string | undefined;
  /** Why it is not held: `not given`, or what was given instead. */
  problem: string | undefined;
}

function describeContext(line: ContextDeclaration): string {
  const element = line.element === undefined ? '' : `[${line.element}]`;
  const name = line.payload === 0 ? 'context' : `context_${line.payload}`;
  return `${name}${element} (${line.length} chars, ${line.hash})`;
}

function invalid(...issues: string[]): RlmError<'protocol.invalid_message'> {
  return new RlmError({
    code: 'protocol.invalid_message',
    message: `Invalid trajectory: ${issues.join('; ')}`,
    details: { issues },
  });
}

/** The recorded context a declaration names, when `payloads` holds it. */
function declaredContext(
  line: ContextDeclaration,
  payloads: readonly JsonValue[],
): DeclaredContext {
  const payload = payloads[line.payload];
  if (payload === undefined) return { line, text: undefined, problem: 'not given' };
  const value =
    line.element === undefined
      ? payload
      : Array.isArray(payload)
        ? payload[line.element]
        : undefined;
  if (typeof value !== 'string') {
    return { line, text: undefined, problem: 'given, but it holds no string there' };
  }
  const hash = value.length === line.length ? textHash(value) : undefined;
  if (hash !== line.hash) {
    const actual = `${value.length} chars, ${hash ?? textHash(value)}`;
    return { line, text: undefined, problem: `given, but it is a different one (${actual})` };
  }
  return { line, text: value, problem: undefined };
}

/** Puts `text` where a packed line left an empty string. */
function fill(record: Record<string, unknown>, path: readonly (string | number)[], text: string) {
  let target: unknown = record;
  for (const key of path.slice(0, -1)) {
    target = (target as Record<string | number, unknown> | null)?.[key];
  }
  const last = path.at(-1) as string | number;
  const holder = target as Record<string | number, unknown> | null;
  if (holder === null || typeof holder !== 'object' || !Object.hasOwn(holder, last)) return false;
  if (holder[last] !== '') return false;
  holder[last] = text;
  return true;
}

/** Reads lines in order, keeping the contexts and texts declared so far. */
class Expander {
  readonly #contexts = new Map<number, DeclaredContext>();
  readonly #texts = new Map<string, string>();
  /** The last record of each kind (without its call id), which the next packed one may change. */
  readonly #last = new Map<string, unknown>();
  /** The call of the last packed line of each kind that had one (format 4's `callDelta` base). */
  readonly #calls = new Map<string, number>();
  /** Where the last slice of each context ended (format 4's `gap` base). */
  readonly #sliceEnds = new Map<number, number>();
  readonly #payloads: readonly JsonValue[];
  readonly #missing: 'error' | 'placeholder';

  constructor({ payloads, missingContext }: ExpandTrajectoryOptions) {
    this.#payloads = payloads ?? [];
    this.#missing = missingContext ?? (payloads === undefined ? 'placeholder' : 'error');
  }

  /** The record a single line stands for; `where` names the line in errors. */
  read(line: SingleTrajectoryLine, where: string): TrajectoryRecord {
    if (line.kind === 'packed') return this.#unpack(line, where);
    this.#last.set(deltaKey(line), withoutCallId(line as never).record);
    return line;
  }

  #unpack(line: PackedLine, where: string): TrajectoryRecord {
    for (const declaration of line.contexts ?? []) {
      this.#contexts.set(declaration.index, declaredContext(declaration, this.#payloads));
    }
    const set = structuredClone(line.record);
    for (const { path, parts } of line.strings ?? []) {
      const at = `${where}, ${path.join('.')}`;
      const text = parts.map((part) => this.#part(part, at)).join('');
      if (!fill(set, path, text)) throw invalid(`${at}: the record has no empty string there`);
    }
    const record = this.#changed(line, set, where);
    const call = this.#call(line, where);
    const parsed = trajectoryRecordSchema.safeParse(withCallId(record, call));
    if (parsed.success) {
      const key = deltaKey(parsed.data);
      this.#last.set(key, record);
      if (call !== undefined) this.#calls.set(key, call);
      return parsed.data;
    }
    throw invalid(...describeIssues(parsed.error).map((issue) => `${where}: ${issue}`));
  }

  /** The record a packed line's `record` (its strings filled) stands for: itself, or a change of the previous one of its kind. */
  #changed(line: PackedLine, set: Record<string, unknown>, where: string): unknown {
    if (line.of === undefined) {
      if (line.add !== undefined) throw invalid(`${where}: it has add without of`);
      return set;
    }
    const base = this.#last.get(line.of);
    if (base === undefined) {
      throw invalid(`${where}: it changes the previous ${line.of} record, and none came before`);
    }
    const record = applyDelta(base, set, line.unset ?? []);
    const problem = line.add === undefined ? undefined : addIntegers(record, line.add);
    if (problem !== undefined) {
      throw invalid(`${where}: add.${problem.join('.')} has no integer to add to`);
    }
    return record;
  }

  /** A packed line's call number: as written, or (format 4) a step from the previous one of its kind. */
  #call(line: PackedLine, where: string): number | undefined {
    if (line.callDelta === undefined) return line.call;
    const previous = line.of === undefined ? undefined : this.#calls.get(line.of);
    if (line.call !== undefined || previous === undefined) {
      throw invalid(
        line.call === undefined
          ? `${where}: its callDelta follows no earlier ${line.of ?? 'record of its kind'} with a call`
          : `${where}: it has both call and callDelta`,
      );
    }
    const call = previous + line.callDelta;
    if (!Number.isSafeInteger(call) || call < 0) {
      throw invalid(`${where}: callDelta ${line.callDelta} makes call ${call}`);
    }
    return call;
  }

  #part(part: PackedPart, at: string): string {
    if (typeof part === 'string') return part;
    if ('text' in part) {
      if (part.value !== undefined) {
        if (textHash(part.value) !== part.text) {
          throw invalid(`${at}: a text does not match its hash ${part.text}`);
        }
        this.#texts.set(part.text, part.value);
        return part.value;
      }
      const text = this.#texts.get(part.text);
      if (text === undefined)
        throw invalid(`${at}: text ${part.text} is on no earlier line (a file cut before it?)`);
      return text;
    }
    return this.#slice(part, at);
  }

  #slice(part: SlicePart, at: string): string {
    const context = this.#contexts.get(part.context);
    if (context === undefined) {
      throw invalid(`${at}: context ${part.context} is declared on no earlier line`);
    }
    const offset = this.#sliceOffset(part, at);
    this.#sliceEnds.set(part.context, offset + part.length);
    if (context.text === undefined) return this.#missingSlice({ ...part, offset }, context);
    const slice = context.text.slice(offset, offset + part.length);
    const hash = 'hash' in part ? part.hash : undefined;
    if (slice.length !== part.length || (hash !== undefined && textHash(slice) !== hash)) {
      const what = `the slice at ${offset} (${part.length} chars) of ${describeContext(context.line)}`;
      throw invalid(
        hash === undefined
          ? `${at}: ${what} is past the context's end`
          : `${at}: ${what} does not match its hash ${hash}`,
      );
    }
    return slice;
  }

  /** Where a slice starts: its offset, or (format 4) its gap from the previous slice's end. */
  #sliceOffset(part: SlicePart, at: string): number {
    if (!('gap' in part)) return part.offset;
    const end = this.#sliceEnds.get(part.context);
    if (end === undefined) {
      throw invalid(`${at}: a slice of context ${part.context} follows no earlier slice of it`);
    }
    const offset = end + part.gap;
    if (offset < 0) throw invalid(`${at}: gap ${part.gap} starts the slice before its context`);
    return offset;
  }

  #missingSlice(
    part: { offset: number; length: number },
    { line, problem = 'not given' }: DeclaredContext,
  ): string {
    const name = describeContext(line);
    if (this.#missing === 'placeholder') {
      return `[${part.length} chars of ${name} from offset ${part.offset}: that context was ${problem}]`;
    }
    throw new RlmError({
      code: 'trace.context_missing',
      message: `The trajectory refers to ${name}, ${problem}: pass the recorded run's context to read it`,
      details: {
        context: line.payload,
        element: line.element ?? null,
        length: line.length,
        hash: line.hash,
        given: problem === 'not given' ? null : problem,
      },
    });
  }
}

/**
 * Turns the lines of a trajectory file back into its records: compressed groups are expanded,
 * packed strings are rebuilt from their slices and texts, every slice checked against its hash.
 * Lines of format 1 pass through.
 *
 * @throws RlmError `trace.context_missing` when a reference needs a context that was not given
 *   or is not the recorded one and `missingContext` is `error` (the default when `payloads` are
 *   given);
 *   `protocol.invalid_message` for a text or context that no earlier line declared, a slice that
 *   does not match its hash, or a record that is not one once expanded
 * @example
 * const records = expandTrajectory(lines, { payloads: [context] });
 */
export function expandTrajectory(
  lines: readonly StoredTrajectoryLine[],
  options: ExpandTrajectoryOptions = {},
): TrajectoryRecord[] {
  const expander = new Expander(options);
  const records: TrajectoryRecord[] = [];
  for (const [position, line] of lines.entries()) {
    if (line.kind !== 'group') {
      records.push(expander.read(line, `record ${position + 1}`));
      continue;
    }
    for (const [at, text] of groupedLines(line, `record ${position + 1}`).entries()) {
      const where = `record ${position + 1}, line ${at + 1} of its group`;
      records.push(expander.read(singleLine(text, where), where));
    }
  }
  return records;
}

/** A line of a compressed group, checked like a line of the file. */
function singleLine(text: string, where: string): SingleTrajectoryLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid(`${where}: not JSON`);
  }
  const parsed = singleTrajectoryLineSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw invalid(...describeIssues(parsed.error).map((issue) => `${where}: ${issue}`));
}
