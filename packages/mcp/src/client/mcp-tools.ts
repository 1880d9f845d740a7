import type { ToolDefinition } from '@rlm/executor';
import { type JsonValue, parseSchema, RlmError } from '@rlm/protocol';
import { z } from 'zod';
import { type ArgumentValidator, argumentValidator } from './argument-validator.js';
import { connectMcp, type McpConnection } from './connect-mcp.js';
import { describeMcpServer, type McpServerSpec, parseMcpServerSpec } from './mcp-server-spec.js';
import { hostToolNames } from './tool-names.js';
import { DEFAULT_MAX_RESULT_CHARS, type McpCallResult, toolResultValue } from './tool-result.js';
import { parameterNotes, toolSignature } from './tool-signature.js';

/** Time one tool call may take. @default 60_000 */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;
/** Time to start (or reach) a server and finish the handshake. @default 30_000 */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;

const optionsSchema = z.strictObject({
  /** Put before every REPL name, such as `github_`. @default '' */
  prefix: z
    .string()
    .regex(/^[A-Za-z_$][A-Za-z0-9_$]*$/, 'prefix must start an identifier')
    .optional(),
  /** Only these tools (by their MCP names); every tool when absent. */
  include: z.array(z.string().min(1)).optional(),
  /** @default DEFAULT_MAX_RESULT_CHARS */
  maxResultChars: z.number().int().positive().default(DEFAULT_MAX_RESULT_CHARS),
  /** @default DEFAULT_MCP_CALL_TIMEOUT_MS */
  callTimeoutMs: z.number().int().positive().default(DEFAULT_MCP_CALL_TIMEOUT_MS),
  /** @default DEFAULT_MCP_CONNECT_TIMEOUT_MS */
  connectTimeoutMs: z.number().int().positive().default(DEFAULT_MCP_CONNECT_TIMEOUT_MS),
  /** Cancels connecting. */
  signal: z.custom<AbortSignal>((value) => value instanceof AbortSignal).optional(),
});

/** Options of `mcpTools`. */
export type McpToolsOptions = z.input<typeof optionsSchema>;

/**
 * An MCP server's tools as REPL host functions, and the open connection behind them. Whoever
 * called `mcpTools` owns the connection and closes it (`close()`, or `await using`) once the
 * runs that use the tools are over; `createRLM` never closes it.
 */
export interface McpToolSet extends AsyncDisposable {
  /** By REPL name: give them to `createRLM({ tools })`. */
  readonly tools: Record<string, ToolDefinition>;
  /** The server's name and version as it reported them. */
  readonly server: { name: string; version: string } | undefined;
  /** Closes the connection (a stdio server's process ends). Later calls reject; idempotent. */
  close(): Promise<void>;
}

interface McpTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

async function listAllTools(connection: McpConnection, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await connection.client.listTools(cursor === undefined ? {} : { cursor }, {
      timeout: timeoutMs,
    });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function callArguments(name: string, args: readonly JsonValue[]): JsonValue {
  const [first, ...rest] = args;
  const isObject = typeof first === 'object' && first !== null && !Array.isArray(first);
  if (rest.length === 0 && (first === undefined || first === null || isObject)) return first ?? {};
  throw new RlmError({
    code: 'mcp.invalid_arguments',
    message: `${name} takes one object argument, such as ${name}({ … }); got ${args.length} argument(s)${isObject ? '' : ` starting with ${JSON.stringify(first)}`}`,
    details: { tool: name, issues: ['(arguments): expected one object'] },
  });
}

function toolDefinition(
  tool: McpTool,
  {
    name,
    connection,
    validate,
    options,
    isClosed,
  }: {
    name: string;
    connection: McpConnection;
    validate: ArgumentValidator;
    options: z.output<typeof optionsSchema>;
    isClosed: () => boolean;
  },
): ToolDefinition {
  const notes = parameterNotes(tool.inputSchema);
  const description = [tool.description?.trim() || `MCP tool ${tool.name}.`, notes]
    .filter((part) => part !== '')
    .join(' ');
  return {
    description,
    signature: toolSignature(tool.inputSchema),
    async call(args, { signal }) {
      const input = callArguments(name, args);
      const issues = validate(input);
      if (issues !== null) {
        throw new RlmError({
          code: 'mcp.invalid_arguments',
          message: `${name}: invalid arguments, the call was not made: ${issues.join('; ')}`,
          details: { tool: name, issues },
        });
      }
      if (isClosed()) {
        throw new RlmError({
          code: 'mcp.tool_failed',
          message: `${name}: the MCP connection is closed`,
          details: { tool: name },
        });
      }
      let result: McpCallResult;
      try {
        result = (await connection.client.callTool(
          { name: tool.name, arguments: input as Record<string, unknown> },
          undefined,
          { signal, timeout: options.callTimeoutMs },
        )) as McpCallResult;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        const reason = error instanceof Error ? error.message : String(error);
        throw new RlmError({
          code: 'mcp.tool_failed',
          message: `${name} failed: ${reason}`,
          details: { tool: name },
          cause: error,
        });
      }
      return toolResultValue(result, { tool: name, maxResultChars: options.maxResultChars });
    },
  };
}

/**
 * Connects to an MCP server (a command started over stdio, or a Streamable HTTP URL) and returns
 * its tools as REPL host functions: each takes one object argument, checked against the tool's
 * input schema before the call (a mismatch rejects naming the field, and the server never sees
 * it), and resolves to the tool's structured content, else its text. The prompt lists each with
 * its description, call shape and parameter descriptions.
 *
 * @throws RlmError `config.invalid` for a bad spec or option, tool names that clash or are
 *   reserved, a tool schema that does not compile; `mcp.connection_failed` when the server
 *   cannot be started or reached
 * @example
 * await using github = await mcpTools({ command: 'npx', args: ['-y', 'some-mcp-server'] });
 * const rlm = createRLM({ model, tools: github.tools });
 */
export async function mcpTools(
  spec: McpServerSpec,
  options: McpToolsOptions = {},
): Promise<McpToolSet> {
  const server = parseMcpServerSpec(spec);
  const resolved = parseSchema(optionsSchema, options, {
    what: 'mcpTools options',
    code: 'config.invalid',
  });
  resolved.signal?.throwIfAborted();
  const label = describeMcpServer(server);
  const connection = await connectMcp(server, {
    label,
    timeoutMs: resolved.connectTimeoutMs,
    signal: resolved.signal,
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await connection.client.close().catch(() => undefined);
  };
  try {
    const listed = await listAllTools(connection, resolved.connectTimeoutMs);
    const include = resolved.include;
    const missing = include?.filter((name) => !listed.some((tool) => tool.name === name)) ?? [];
    if (missing.length > 0) {
      const issues = missing.map((name) => `include: the server has no tool "${name}"`);
      throw new RlmError({
        code: 'config.invalid',
        message: `MCP server ${label}: ${issues.join('; ')}; it has ${listed.map((tool) => tool.name).join(', ')}`,
        details: { source: `MCP server ${label}`, issues },
      });
    }
    const chosen = listed.filter((tool) => include === undefined || include.includes(tool.name));
    const names = hostToolNames(
      chosen.map((tool) => tool.name),
      { prefix: resolved.prefix, server: label },
    );
    const tools: Record<string, ToolDefinition> = {};
    for (const tool of chosen) {
      const name = names.get(tool.name) ?? tool.name;
      const validate = argumentValidator(tool.inputSchema, { tool: tool.name, server: label });
      tools[name] = toolDefinition(tool, {
        name,
        connection,
        validate,
        options: resolved,
        isClosed: () => closed,
      });
    }
    const info = connection.client.getServerVersion();
    return {
      tools,
      server: info === undefined ? undefined : { name: info.name, version: info.version },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
