/** @packageDocumentation Model Context Protocol for Recursive Language Models: an MCP server's tools as REPL host functions. */

// ── MCP client: outside tools in the REPL ─

export { MAX_ARGUMENT_ISSUES } from './client/argument-validator.js';
export { STDERR_TAIL_CHARS } from './client/connect-mcp.js';
export {
  describeMcpServer,
  type McpServerSpec,
  mcpHttpServerSchema,
  mcpServerSpecSchema,
  mcpStdioServerSchema,
  parseMcpCommandLine,
  parseMcpServerSpec,
  type ResolvedMcpServerSpec,
} from './client/mcp-server-spec.js';
export {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_CONNECT_TIMEOUT_MS,
  type McpToolSet,
  type McpToolsOptions,
  mcpTools,
} from './client/mcp-tools.js';
export { hostToolName } from './client/tool-names.js';
export { DEFAULT_MAX_RESULT_CHARS, MAX_TOOL_ERROR_CHARS } from './client/tool-result.js';
export { MAX_PARAMETER_NOTES_CHARS, toolSignature } from './client/tool-signature.js';
