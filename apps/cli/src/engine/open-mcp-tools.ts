import type { ToolDefinition } from '@rlm/executor';
import type { McpServerSpec, McpToolSet } from '@rlm/mcp';
import { RlmError } from '@rlm/protocol';

/** The tools of every MCP server of a run, and how to close their connections. */
export interface OpenMcpTools {
  tools: Record<string, ToolDefinition>;
  close(): Promise<void>;
}

/**
 * Connects to each server in order and merges its tools with `tools` (the `--tool` modules).
 * The caller closes the result when the run is over; when a connection fails, the ones opened
 * before it are closed here.
 * @throws RlmError `mcp.connection_failed`; `config.invalid` when two servers (or a server and a
 *   tool module) give the same name
 */
export async function openMcpTools(
  servers: readonly McpServerSpec[],
  {
    tools,
    signal,
    prefix,
  }: { tools: Record<string, ToolDefinition>; signal: AbortSignal; prefix?: string },
): Promise<OpenMcpTools> {
  if (servers.length === 0) return { tools, close: async () => undefined };
  const { describeMcpServer, mcpTools, parseMcpServerSpec } = await import('@rlm/mcp');
  const sets: McpToolSet[] = [];
  const close = async () => {
    await Promise.all(sets.map((set) => set.close()));
  };
  const merged = { ...tools };
  try {
    for (const server of servers) {
      const set = await mcpTools(server, { signal, ...(prefix === undefined ? {} : { prefix }) });
      sets.push(set);
      const label = describeMcpServer(parseMcpServerSpec(server));
      for (const [name, tool] of Object.entries(set.tools)) {
        if (Object.hasOwn(merged, name)) {
          const issue = `tool ${name} of MCP server ${label} is already defined by another server or --tool module`;
          throw new RlmError({
            code: 'config.invalid',
            message: `${issue}; leave one of them out`,
            details: { source: 'the command line', issues: [issue] },
          });
        }
        merged[name] = tool;
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { tools: merged, close };
}
