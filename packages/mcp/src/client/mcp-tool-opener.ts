import type { RunToolOpener } from '@rlm/executor';
import type { McpServerSpec } from './mcp-server-spec.js';
import { type McpToolsOptions, mcpTools } from './mcp-tools.js';

/**
 * An MCP server's tools as a tool set `createRunner` opens before a run and closes after it, so
 * every door that lets a run use MCP servers (the CLI's `--mcp`, a server profile's `mcp`) does it
 * the same way.
 *
 * @example
 * await runner.run(settings, { context, toolSets: [mcpToolOpener({ command: 'my-server' })] });
 */
export function mcpToolOpener(
  spec: McpServerSpec,
  options: Omit<McpToolsOptions, 'signal'> = {},
): RunToolOpener {
  return ({ signal }) =>
    mcpTools(spec, { ...options, ...(signal === undefined ? {} : { signal }) });
}
