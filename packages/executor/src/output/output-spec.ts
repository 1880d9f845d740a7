import { type JsonValue, RlmError } from '@rlm/protocol';
import { z } from 'zod';

/** A zod schema describing a typed answer (`output` of `createRLM` or `completion`). */
export type OutputSchema = z.ZodType;

/** A run's expected answer shape: the validator and the JSON Schema the prompt shows. */
export interface OutputSpec {
  schema: OutputSchema;
  /** The schema's input side as JSON Schema, without `$schema`; recorded in the trajectory. */
  jsonSchema: Record<string, JsonValue>;
}

/** True for a zod 4 schema (duck-typed, so a second copy of zod is recognised too). */
export function isOutputSchema(value: unknown): value is OutputSchema {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

function invalid(source: string, issue: string, cause?: unknown): RlmError<'config.invalid'> {
  return new RlmError({
    code: 'config.invalid',
    message: `Invalid ${source}: ${issue}`,
    details: { source, issues: [issue] },
    cause,
  });
}

function withoutMetaSchema(schema: Record<string, unknown>): Record<string, JsonValue> {
  const { $schema: _ignored, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest)) as Record<string, JsonValue>;
}

/**
 * The spec of an `output` schema: its JSON Schema is what the model must produce (the schema's
 * input side; parts JSON Schema cannot express, such as a `z.date()`, show as "any").
 *
 * @throws RlmError `config.invalid` when the schema cannot be described as JSON Schema
 */
export function outputSpec(schema: OutputSchema, recorded?: Record<string, JsonValue>): OutputSpec {
  if (recorded !== undefined) return { schema, jsonSchema: recorded };
  try {
    const jsonSchema = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    return { schema, jsonSchema: withoutMetaSchema(jsonSchema as Record<string, unknown>) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(
      'output schema',
      `output: it cannot be described as JSON Schema (${reason})`,
      error,
    );
  }
}

/**
 * A zod schema validating what a JSON Schema describes (the CLI's `--output-schema` file, the
 * server's `response_format.json_schema.schema`, a recorded run's schema). Local `$ref`s,
 * `$defs`, `anyOf`/`oneOf`/`allOf`, enums, formats and numeric and string bounds are supported;
 * `if`/`then`/`else`, `not`, `unevaluated*`, `dependent*` and external `$ref`s are refused.
 *
 * @throws RlmError `config.invalid` naming `source` and what is not supported
 * @example
 * const output = outputFromJsonSchema({ type: 'object', properties: { n: { type: 'integer' } } });
 */
export function outputFromJsonSchema(
  jsonSchema: unknown,
  { source = 'output JSON Schema' }: { source?: string } = {},
): OutputSchema {
  if (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema)) {
    throw invalid(source, '(root): expected a JSON Schema object such as { "type": "object", … }');
  }
  try {
    return z.fromJSONSchema(jsonSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(source, `(root): this JSON Schema is not supported: ${reason}`, error);
  }
}
