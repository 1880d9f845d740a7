import type { ChatMessage, JsonValue, ReplEnvironment } from '@rlm/protocol';
import type { ToolDefinition } from '../config/tool-definition.js';

/**
 * How a root invocation runs inside a persistent session instead of its own sandbox: the session
 * lends its sandbox with this run's payload loaded and this run's host functions bound, and takes
 * the finished conversation back.
 */
export interface SessionBinding {
  /** Index of this run's payload: it is `context_<contextIndex>` in the sandbox. */
  readonly contextIndex: number;
  /** Finished conversations already in the sandbox (`history_0 …`). */
  readonly historyCount: number;
  /** The session's sandbox, with `payload` loaded and `functions` answering its host calls. */
  open(input: {
    payload: JsonValue;
    functions: Record<string, ToolDefinition>;
    meta: Record<string, JsonValue>;
  }): Promise<ReplEnvironment>;
  /** Unbinds the run and stores its conversation as `history_<historyCount>`. Never rejects. */
  finish(history: readonly ChatMessage[]): Promise<void>;
}
