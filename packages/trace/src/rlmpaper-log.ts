import { describeIssues, type JsonValue, jsonValueSchema } from '@rlm/protocol';
import { z } from 'zod';

/*
 * The reference engine ("rlmpaper") writes one JSONL log per run: a `metadata` line with its
 * configuration, then one `iteration` line per root turn holding the messages it sent, the reply,
 * and each code block with what it printed and the sub-calls it made (a child RLM's own
 * iterations nested in the sub-call's `metadata`). Fields it may leave out or set to null are
 * optional here, and unknown fields are kept, so logs of other versions still read.
 */

/** A message as the reference engine logs it; `content` may be any JSON in other versions. */
const loggedMessageSchema = z.looseObject({ role: z.string(), content: jsonValueSchema });

/** What a block's sub-call returned (`llm_query`, or `rlm_query` with the child's iterations). */
export interface RlmpaperCall {
  root_model?: string | null | undefined;
  prompt?: JsonValue | undefined;
  response?: string | null | undefined;
  execution_time?: number | null | undefined;
  /** A child RLM's log: `{ iterations: [...] }` (and `run_metadata`); null for a plain call. */
  metadata?: { iterations?: RlmpaperIteration[] | undefined; [key: string]: unknown } | null;
  error?: string | null | undefined;
  [key: string]: unknown;
}

export interface RlmpaperBlock {
  code: string;
  result: {
    stdout: string;
    stderr: string;
    /** Variable name → value as the engine serialised it (a primitive, or a `repr`-like string). */
    locals: Record<string, JsonValue>;
    execution_time: number | null;
    rlm_calls: RlmpaperCall[];
    final_answer: string | null;
  };
}

export interface RlmpaperIteration {
  type?: 'iteration' | undefined;
  /** 1-based within its run. */
  iteration?: number | undefined;
  timestamp?: string | undefined;
  /** The messages sent (a list of `{ role, content }`), or one prompt string. */
  prompt: JsonValue;
  response: string;
  code_blocks: RlmpaperBlock[];
  final_answer: string | null;
  /** Seconds. */
  iteration_time: number | null;
}

const callSchema: z.ZodType<RlmpaperCall> = z.lazy(() =>
  z.looseObject({
    root_model: z.string().nullish(),
    prompt: jsonValueSchema.optional(),
    response: z.string().nullish(),
    execution_time: z.number().nullish(),
    metadata: z.looseObject({ iterations: z.array(iterationSchema).optional() }).nullish(),
    error: z.string().nullish(),
  }),
) as z.ZodType<RlmpaperCall>;

const blockSchema = z.object({
  code: z.string(),
  result: z.object({
    stdout: z
      .string()
      .nullish()
      .transform((value) => value ?? ''),
    stderr: z
      .string()
      .nullish()
      .transform((value) => value ?? ''),
    locals: z
      .record(z.string(), jsonValueSchema)
      .nullish()
      .transform((value) => value ?? {}),
    execution_time: z
      .number()
      .nullish()
      .transform((value) => value ?? null),
    rlm_calls: z
      .array(callSchema)
      .nullish()
      .transform((value) => value ?? []),
    final_answer: z
      .string()
      .nullish()
      .transform((value) => value ?? null),
  }),
});

const iterationSchema: z.ZodType<RlmpaperIteration> = z.lazy(() =>
  z.looseObject({
    type: z.literal('iteration').optional(),
    iteration: z.number().int().optional(),
    timestamp: z.string().optional(),
    prompt: z.union([z.array(loggedMessageSchema), jsonValueSchema]),
    response: z
      .string()
      .nullish()
      .transform((value) => value ?? ''),
    code_blocks: z
      .array(blockSchema)
      .nullish()
      .transform((value) => value ?? []),
    final_answer: z
      .union([z.string(), z.number(), z.boolean()])
      .nullish()
      .transform((value) => (value === null || value === undefined ? null : String(value))),
    iteration_time: z
      .number()
      .nullish()
      .transform((value) => value ?? null),
  }),
) as z.ZodType<RlmpaperIteration>;

/** The `metadata` line: the run's configuration (API keys already filtered out by the engine). */
export const rlmpaperMetadataSchema = z.looseObject({
  type: z.literal('metadata'),
  timestamp: z.string().optional(),
  root_model: z.string().nullish(),
  max_depth: z.number().nullish(),
  max_iterations: z.number().nullish(),
  backend: z.string().nullish(),
  backend_kwargs: z.record(z.string(), jsonValueSchema).nullish(),
  environment_type: z.string().nullish(),
  environment_kwargs: z.record(z.string(), jsonValueSchema).nullish(),
  other_backends: jsonValueSchema.optional(),
});
export type RlmpaperMetadata = z.infer<typeof rlmpaperMetadataSchema>;

export const rlmpaperIterationSchema = iterationSchema;

/**
 * A whole log. The engine's logger writes one metadata line per logger and restarts the
 * iteration count at 1 for each completion, so one file can hold several runs: `runs` has one
 * list of iterations each.
 */
export interface RlmpaperLog {
  metadata: RlmpaperMetadata | undefined;
  runs: RlmpaperIteration[][];
  /**
   * The context the run worked on, when the log holds it: the engine records it when it was
   * passed as `environment_kwargs.context_payload`; a `run_context` line (`context`) also counts.
   */
  context: JsonValue | undefined;
}

export type RlmpaperLogResult =
  | { ok: true; value: RlmpaperLog }
  | { ok: false; error: { line: number; issues: string[]; cause?: unknown } };

/**
 * Whether `text` looks like a reference-engine log rather than one of our trajectories: its
 * first line is a JSON object whose `type` is `metadata` or `iteration` (ours have `kind`).
 */
export function isRlmpaperLog(text: string): boolean {
  const newline = text.indexOf('\n');
  const first = (newline < 0 ? text : text.slice(0, newline)).trim();
  if (!first.startsWith('{')) return false;
  try {
    const value = JSON.parse(first) as Record<string, unknown>;
    return (
      value['kind'] === undefined && (value['type'] === 'metadata' || value['type'] === 'iteration')
    );
  } catch {
    return false;
  }
}

/**
 * Reads a reference-engine log. A line that is not JSON, or a `metadata`/`iteration` line
 * without the fields this reader needs, is an error naming its line number and the fields;
 * lines of other types are skipped (a `run_context` line gives the context).
 */
export function safeParseRlmpaperLog(text: string): RlmpaperLogResult {
  const state: ParseState = { metadata: undefined, context: undefined, runs: [] };
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]?.trim() ?? '';
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      return { ok: false, error: { line: index + 1, issues: ['not JSON'], cause } };
    }
    const issues = readLine(state, value);
    if (issues !== undefined) return { ok: false, error: { line: index + 1, issues } };
  }
  const { metadata, runs, context } = state;
  return { ok: true, value: { metadata, runs, context } };
}

interface ParseState {
  metadata: RlmpaperMetadata | undefined;
  context: JsonValue | undefined;
  runs: RlmpaperIteration[][];
}

/** Adds one parsed line to `state`; returns the issues of a line it cannot read. */
function readLine(state: ParseState, value: unknown): string[] | undefined {
  const type = (value as { type?: unknown } | null)?.type;
  if (type === 'metadata') {
    const parsed = rlmpaperMetadataSchema.safeParse(value);
    if (!parsed.success) return describeIssues(parsed.error);
    state.metadata ??= parsed.data;
    const payload = parsed.data.environment_kwargs?.['context_payload'];
    if (payload !== undefined) state.context ??= payload;
    return undefined;
  }
  if (type === 'run_context') {
    const record = value as Record<string, JsonValue>;
    state.context ??= record['context'] ?? record['context_payload'];
    return undefined;
  }
  if (type !== 'iteration') return undefined;
  const parsed = iterationSchema.safeParse(value);
  if (!parsed.success) return describeIssues(parsed.error);
  const iteration = parsed.data;
  const current = state.runs.at(-1);
  // A count that does not go up starts the next completion's run.
  const previous = current?.at(-1)?.iteration;
  const restarts =
    iteration.iteration !== undefined && previous !== undefined && iteration.iteration <= previous;
  if (current === undefined || restarts) state.runs.push([iteration]);
  else current.push(iteration);
  return undefined;
}
