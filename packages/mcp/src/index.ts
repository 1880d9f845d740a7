/** @packageDocumentation Model Context Protocol for Recursive Language Models, both ways: an MCP server's tools as REPL host functions, and the RLM served as MCP tools. */

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
export { mcpToolOpener } from './client/mcp-tool-opener.js';
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

// ── MCP server: the RLM as tools ────────

export {
  type AllowedFile,
  DEFAULT_CONTEXT_EXCLUDE,
  realRoots,
  resolveAllowedFiles,
} from './server/allowed-roots.js';
export {
  BoundedStdioTransport,
  type BoundedStdioTransportOptions,
  DEFAULT_STDIO_MAX_MESSAGE_BYTES,
} from './server/bounded-stdio-transport.js';
export { ERROR_META_KEY } from './server/call-tool-result.js';
export {
  createHttpSession,
  type HttpSession,
  type HttpSessionOptions,
} from './server/http-session.js';
export {
  CONTEXT_PREVIEW_CHARS,
  DEFAULT_MAX_CONTEXT_BYTES,
  type LoadedContext,
  loadContext,
} from './server/load-context.js';
export {
  type OversizedMessage,
  PEEK_BYTES,
  peekOversizedMessage,
} from './server/peek-oversized-message.js';
export { type BoundedBody, readBoundedBody } from './server/read-bounded-body.js';
export { DEFAULT_REPL_BLOCK_TIMEOUT_MS, DEFAULT_REPL_OUTPUT_CHARS } from './server/repl-session.js';
export {
  createRlmMcpServer,
  DEFAULT_SHUTDOWN_GRACE_MS,
  type RlmMcpServer,
  type RlmMcpServerOptions,
} from './server/rlm-mcp-server.js';
export {
  callerChoicesOf,
  type RlmQueryRequest,
  type RlmQueryRunner,
  type RlmQueryRunnerOptions,
  rlmQueryRunner,
} from './server/rlm-query-runner.js';
export { MAX_LISTED_RUNS } from './server/run-records.js';
export { type ServeStdioOptions, serveStdio } from './server/serve-stdio.js';
export type { SessionTrajectoryTarget } from './server/session-record.js';
export { ROOTS_LIST_TIMEOUT_MS } from './server/session-roots.js';
export {
  isMcpSessionTrajectory,
  MCP_SESSION_TRAJECTORY_KIND,
} from './server/session-trajectory.js';
export {
  DEFAULT_SAMPLING_MAX_TOKENS,
  DEFAULT_SUB_CALL_CONCURRENCY,
  type SubCallBudget,
} from './server/sub-calls.js';
export { RLM_TOOL_NAMES, type RlmToolName } from './server/tool-list.js';
export {
  contextLoadInputSchema,
  replExecInputSchema,
  rlmQueryInputSchema,
  rlmQueryOutputSchema,
} from './server/tool-schemas.js';
