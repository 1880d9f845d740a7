import type { RLMChatCompletion } from '@rlm/protocol';
import type { z } from 'zod';
import type { OutputSchema, OutputSpec } from './output-spec.js';

/** A run's result whose `answer` is a typed value instead of text. */
export type TypedCompletion<TAnswer> = Omit<RLMChatCompletion, 'answer'> & {
  /** The accepted answer, parsed by the output schema; `null` when the run gave none. */
  answer: TAnswer | null;
};

/** What `completion()` resolves to: typed by the output schema, plain text without one. */
export type CompletionResult<TOutput extends OutputSchema | undefined> =
  TOutput extends OutputSchema ? TypedCompletion<z.output<TOutput>> : RLMChatCompletion;

/**
 * The result with its answer typed. The loop accepted the answer as JSON text that the schema
 * validated, so parsing it again gives the same value (transforms included).
 */
export function typedCompletion(
  result: RLMChatCompletion,
  output: OutputSpec | undefined,
): TypedCompletion<unknown> {
  if (output === undefined || result.answer === null) return result;
  return { ...result, answer: output.schema.parse(JSON.parse(result.answer)) };
}
