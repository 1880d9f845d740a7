import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorKind, RlmError } from '@rlm/protocol';

/** The key under `_meta` of an error result that carries its code and kind. */
export const ERROR_META_KEY = 'rlm/error';

/** A successful result: `text` for the model to read, `structured` matching the output schema. */
export function toolSuccess(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/**
 * An error result (`isError: true`): the text starts with the `RlmError` code, and `_meta`
 * carries `{ code, kind, message }` so a program can branch on the code. Anything that is not
 * an `RlmError` is reported as an internal fault without its stack.
 */
export function toolError(error: unknown): CallToolResult {
  const { code, message } = RlmError.is(error)
    ? error
    : {
        code: 'server.internal',
        message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
      };
  return {
    content: [{ type: 'text', text: `${code}: ${message}` }],
    isError: true,
    _meta: { [ERROR_META_KEY]: { code, kind: errorKind(code), message } },
  };
}
