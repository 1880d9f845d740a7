import { type JsonValue, RlmError, truncateOutput } from '@rlm/protocol';

/** Characters of a tool's result the REPL receives (text, or structured content as JSON). @default 20_000 */
export const DEFAULT_MAX_RESULT_CHARS = 20_000;
/** Characters of a failed tool's text in the error the guest sees. */
export const MAX_TOOL_ERROR_CHARS = 2_000;

/** The parts of an MCP `CallToolResult` this package reads. */
export interface McpCallResult {
  content?: readonly { type: string; text?: string }[] | undefined;
  structuredContent?: Record<string, unknown> | undefined;
  isError?: boolean | undefined;
}

function textOf(result: McpCallResult): string {
  return (result.content ?? [])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

/**
 * What the REPL's call returns: the structured content when the tool gave one (an object),
 * else its text parts joined with newlines; cut at `maxResultChars` with a visible marker (a
 * structured result that long comes back as its cut JSON text). A result with `isError`
 * rejects with the tool's own text.
 *
 * @throws RlmError `mcp.tool_failed` for a result with `isError`
 */
export function toolResultValue(
  result: McpCallResult,
  { tool, maxResultChars }: { tool: string; maxResultChars: number },
): JsonValue {
  if (result.isError === true) {
    const text = textOf(result).trim() || 'the tool reported an error without text';
    throw new RlmError({
      code: 'mcp.tool_failed',
      message: `${tool} failed: ${truncateOutput(text, MAX_TOOL_ERROR_CHARS)}`,
      details: { tool },
    });
  }
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (json.length <= maxResultChars) return JSON.parse(json) as JsonValue;
    return truncateOutput(json, maxResultChars);
  }
  return truncateOutput(textOf(result), maxResultChars);
}
