import type { JsonValue } from '@rlm/protocol';

/** A host function exposed to model code by name; its description is listed in the system prompt. */
export interface ToolDefinition {
  description: string;
  /**
   * The call shape the prompt shows after the name, such as `({ query: string, limit?: number })`;
   * `(…)` when absent.
   */
  signature?: string | undefined;
  /** Receives the call's JSON-safe arguments; `signal` aborts when the block or run stops. */
  call(args: JsonValue[], options: { signal: AbortSignal }): Promise<JsonValue>;
}
