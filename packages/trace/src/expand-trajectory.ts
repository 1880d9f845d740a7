import {
  describeIssues,
  type JsonValue,
  RlmError,
  type TrajectoryRecord,
  trajectoryRecordSchema,
} from '@rlm/protocol';
import type { ContextLine, PackedLine, PackedPart, StoredTrajectoryLine } from './stored-line.js';
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
   * naming the context and the slice instead (for views that show what they can).
   * @default 'error'
   */
  missingContext?: 'error' | 'placeholder';
}

function describeContext(line: ContextLine): string {
  const element = line.element === undefined ? '' : `[${line.element}]`;
  const name = line.payload === 0 ? 'context' : `context_${line.payload}`;
  return `${name}${element} (${line.length} chars, ${line.hash})`;
}

/**
 * Turns the lines of a trajectory file back into its records: packed strings are rebuilt from
 * their slices and texts, every slice checked against its hash. Lines of format 1 pass through.
 *
 * @throws RlmError `trace.context_missing` when a reference needs a context that was not given
 *   or is not the recorded one (unless `missingContext` is `placeholder`);
 *   `protocol.invalid_message` for a text or context that no earlier line declared, or a record
 *   that is not one once expanded
 */
export function expandTrajectory(
  lines: readonly StoredTrajectoryLine[],
  { payloads = [], missingContext = 'error' }: ExpandTrajectoryOptions = {},
): TrajectoryRecord[] {
  const contexts = new Map<
    number,
    { line: ContextLine; text: string | undefined; problem: string | undefined }
  >();
  const texts = new Map<string, string>();
  const records: TrajectoryRecord[] = [];

  function sourceOf(line: ContextLine): { text: string | undefined; problem: string | undefined } {
    const payload = payloads[line.payload];
    const value =
      line.element === undefined
        ? payload
        : Array.isArray(payload)
          ? payload[line.element]
          : undefined;
    if (payload === undefined) return { text: undefined, problem: 'not given' };
    if (typeof value !== 'string')
      return { text: undefined, problem: 'given, but not a string there' };
    if (value.length !== line.length || textHash(value) !== line.hash) {
      return {
        text: undefined,
        problem: `given, but it is a different one (${value.length} chars, ${textHash(value)})`,
      };
    }
    return { text: value, problem: undefined };
  }

  function expandPart(part: PackedPart, at: string): string {
    if (typeof part === 'string') return part;
    if ('text' in part) {
      const text = texts.get(part.text);
      if (text === undefined) throw invalid(`${at}: text ${part.text} is not on an earlier line`);
      return text;
    }
    const context = contexts.get(part.context);
    if (context === undefined)
      throw invalid(`${at}: context ${part.context} is not declared on an earlier line`);
    if (context.text === undefined) {
      const what = `${describeContext(context.line)}, ${context.problem}`;
      if (missingContext === 'placeholder') {
        return `[${part.length} chars of ${describeContext(context.line)} from offset ${part.offset}: that context was ${context.problem}]`;
      }
      throw new RlmError({
        code: 'trace.context_missing',
        message: `The trajectory refers to ${what}: pass the recorded run's context to read it`,
        details: {
          context: context.line.payload,
          element: context.line.element ?? null,
          length: context.line.length,
          hash: context.line.hash,
          given: context.problem === 'not given' ? null : (context.problem ?? null),
        },
      });
    }
    const slice = context.text.slice(part.offset, part.offset + part.length);
    if (slice.length !== part.length || textHash(slice) !== part.hash) {
      throw invalid(
        `${at}: the slice at ${part.offset} (${part.length} chars) of ${describeContext(context.line)} does not match its hash ${part.hash}`,
      );
    }
    return slice;
  }

  function unpack(line: PackedLine, number: number): unknown {
    const record = structuredClone(line.record) as Record<string, unknown>;
    for (const { path, parts } of line.strings) {
      const at = `record ${number}, ${path.join('.')}`;
      const text = parts.map((part) => expandPart(part, at)).join('');
      setAt(record, path, text, at);
    }
    return record;
  }

  for (const [position, line] of lines.entries()) {
    if (line.kind === 'context') {
      contexts.set(line.index, { line, ...sourceOf(line) });
    } else if (line.kind === 'text') {
      texts.set(line.hash, line.text);
    } else if (line.kind === 'packed') {
      const parsed = trajectoryRecordSchema.safeParse(unpack(line, position + 1));
      if (!parsed.success) {
        throw invalid(
          ...describeIssues(parsed.error).map((issue) => `record ${position + 1}: ${issue}`),
        );
      }
      records.push(parsed.data);
    } else {
      records.push(line);
    }
  }
  return records;
}

function setAt(
  record: Record<string, unknown>,
  path: readonly (string | number)[],
  text: string,
  at: string,
): void {
  let target: unknown = record;
  for (const key of path.slice(0, -1)) {
    target = (target as Record<string | number, unknown> | null)?.[key];
  }
  const last = path.at(-1) as string | number;
  if (
    target === null ||
    typeof target !== 'object' ||
    (target as Record<string | number, unknown>)[last] !== ''
  ) {
    throw invalid(`${at}: the record has no empty string there to fill`);
  }
  (target as Record<string | number, unknown>)[last] = text;
}

function invalid(...issues: string[]): RlmError<'protocol.invalid_message'> {
  return new RlmError({
    code: 'protocol.invalid_message',
    message: `Invalid trajectory: ${issues.join('; ')}`,
    details: { issues },
  });
}
