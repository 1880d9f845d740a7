import { type TrajectoryRecord, trajectoryRecordSchema } from '@rlm/protocol';
import { z } from 'zod';

/** A short SHA-256 as trajectories write it: `sha256:` and the first 16 hex digits. */
export const shortHashSchema = z
  .string()
  .regex(/^sha256:[0-9a-f]{16}$/, 'expected sha256:<16 hex>');

/**
 * One piece of a string packed into a trajectory line: literal text; a slice of a context the
 * file declared (`context` is its `index`), placed by `offset` or (format 4) by its `gap` from
 * where the previous slice of that context ended; a long text with its hash (`value`), the first
 * time the file holds it; or that hash alone, every time after.
 */
export const packedPartSchema = z.union([
  z.string(),
  z.strictObject({
    context: z.number().int().nonnegative(),
    offset: z.number().int().nonnegative(),
    length: z.number().int().positive(),
    /**
     * The slice's own hash, checked by a reader after cutting the slice (format 2). Format 3
     * leaves it out: the context's declaration carries the hash of the whole context, which a
     * reader checks before cutting anything, so offset and length name the text exactly.
     */
    hash: shortHashSchema.optional(),
  }),
  /**
   * A slice placed after the previous slice of the same context in the file (format 4): it starts
   * `gap` characters after that one's end (negative: before it). Chunks a model cuts in order sit
   * a constant gap apart, which compresses to almost nothing where offsets would not.
   */
  z.strictObject({
    context: z.number().int().nonnegative(),
    gap: z.number().int(),
    length: z.number().int().positive(),
  }),
  z.strictObject({ text: shortHashSchema, value: z.string().optional() }),
]);
export type PackedPart = z.infer<typeof packedPartSchema>;

/**
 * A context a trajectory takes slices from: payload `payload` of the run (0 is `context`, 1… the
 * extra `contexts`), the string at `element` when that payload is an array. Its length and hash
 * let a reader tell the same context from another one before expanding anything.
 */
export const contextDeclarationSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  payload: z.number().int().nonnegative(),
  element: z.number().int().nonnegative().optional(),
  length: z.number().int().nonnegative(),
  hash: shortHashSchema,
});
export type ContextDeclaration = z.infer<typeof contextDeclarationSchema>;

/** Where a packed string sits in its record: object keys and array indices from the record's root. */
export const packedPathSchema = z
  .array(z.union([z.string(), z.number().int().nonnegative()]))
  .min(1);

/**
 * A record packed (format 2). With `of`, `record` holds only what changed since the previous
 * record of that kind in the file (`of` is `event:<type>` or the record's `kind`; keys in
 * `unset` are gone; format 4: an integer that changed is in `add`, at the same path, as its
 * difference from the previous record's); without it, the whole record. Its long strings are `""` at each
 * `strings[].path` (relative to `record`), their text the concatenation of `parts`; `contexts`
 * declares the contexts its slices are the first in the file to use. Still one line per record,
 * so a file cut after any line is a readable prefix. The record is checked against the protocol
 * schema once expanded.
 */
export const packedLineSchema = z.strictObject({
  kind: z.literal('packed'),
  of: z.string().min(1).optional(),
  /** The record's call id is `<runId>:<call>` (the executor's form), left out of `record`. */
  call: z.number().int().nonnegative().optional(),
  /**
   * Format 4, with `of`: the call is the previous `of` record's call (one that had a call) plus
   * this. Sub-calls of a batch come in order, so it is the same small step line after line.
   */
  callDelta: z.number().int().optional(),
  contexts: z.array(contextDeclarationSchema).optional(),
  record: z.record(z.string(), z.unknown()),
  unset: z.array(z.array(z.string()).min(1)).optional(),
  /** Format 4: integers to add to the previous record's at the same paths (timestamps, durations, counts). */
  add: z.record(z.string(), z.unknown()).optional(),
  strings: z
    .array(z.strictObject({ path: packedPathSchema, parts: z.array(packedPartSchema).min(1) }))
    .optional(),
});
export type PackedLine = z.infer<typeof packedLineSchema>;

/** A line that stands for one record: the record as it is, or packed (format 2). */
export const singleTrajectoryLineSchema = z.discriminatedUnion('kind', [
  packedLineSchema,
  trajectoryRecordSchema,
]);
export type SingleTrajectoryLine = PackedLine | TrajectoryRecord;

/**
 * Consecutive lines compressed together (format 3): `data` is the base64 of the Brotli
 * compression of `lines` single lines joined by `\n`. A run of sub-calls repeats its shape in
 * every record (events, exchanges, previews of one instruction), which compression removes; the
 * group is still one line, so a file cut after any line is a readable prefix.
 */
export const groupLineSchema = z.strictObject({
  kind: z.literal('group'),
  lines: z.number().int().positive(),
  data: z.string().min(1),
});
export type GroupLine = z.infer<typeof groupLineSchema>;

/**
 * One line of a trajectory file as written: a record as it is, a packed record (format 2), or a
 * group of those compressed (format 3). `readTrajectory` turns these back into `TrajectoryRecord`s.
 */
export const storedTrajectoryLineSchema = z.discriminatedUnion('kind', [
  packedLineSchema,
  groupLineSchema,
  trajectoryRecordSchema,
]);
export type StoredTrajectoryLine = SingleTrajectoryLine | GroupLine;
