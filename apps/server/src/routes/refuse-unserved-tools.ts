import { hostToolName, mcpTools } from '@rlm/mcp';
import { describeIssues, RlmError } from '@rlm/protocol';
import { prettifyError, z } from 'zod';
import type { ModelProfile } from '../server-config.js';

/**
 * One entry of a request's `tools`: chat completions nest the name (`{ type: 'function',
 * function: { name } }`), the Responses API does not (`{ type: 'function', name }`); other types
 * are the provider's built-in tools (`web_search`, `file_search`, …).
 */
const requestedToolSchema = z
  .object({
    type: z.string(),
    name: z.string().optional(),
    function: z.object({ name: z.string() }).loose().optional(),
  })
  .loose();
const requestedToolsSchema = z.array(requestedToolSchema).nullish();

/** Lists the REPL names of the tools of a profile's MCP servers (connecting to each). */
export type McpToolNameLister = (profile: ModelProfile) => Promise<readonly string[]>;

/** Connects to each of the profile's MCP servers in turn, notes its tools' names and closes it. */
export const listProfileMcpToolNames: McpToolNameLister = async (profile) => {
  const names: string[] = [];
  for (const spec of profile.mcp) {
    const set = await mcpTools(spec);
    try {
      names.push(...Object.keys(set.tools));
    } finally {
      await set.close();
    }
  }
  return names;
};

function refusal(issues: readonly string[], hint: string): RlmError<'protocol.invalid_message'> {
  return new RlmError({
    code: 'protocol.invalid_message',
    message: `${issues.join('; ')}. ${hint}`,
    details: { issues },
  });
}

const NOT_FUNCTION_CALLING =
  'This server runs an RLM, which answers by itself: it never replies with tool_calls for the client to run. Remove "tools", or name only tools of the model\'s MCP servers, which the RLM calls from its REPL';

/**
 * A request's `tools` are accepted only when the server itself can call each of them: functions
 * named like tools of the profile's MCP servers (which every run of the profile has in its REPL).
 * Anything else would be silently ignored (the RLM never returns `tool_calls`), so it is refused
 * before a run exists. An absent or empty `tools` is fine.
 *
 * @throws RlmError `protocol.invalid_message` (400) naming `tools` and each tool it cannot call
 */
export async function refuseUnservedTools(
  raw: unknown,
  {
    profile,
    profileName,
    listTools = listProfileMcpToolNames,
  }: {
    profile: ModelProfile;
    profileName: string;
    listTools?: McpToolNameLister;
  },
): Promise<void> {
  const parsed = requestedToolsSchema.safeParse(raw);
  if (!parsed.success) {
    throw new RlmError({
      code: 'protocol.invalid_message',
      message: `Invalid tools:\n${prettifyError(parsed.error)}`,
      details: { issues: describeIssues(parsed.error).map((issue) => `tools.${issue}`) },
    });
  }
  const tools = parsed.data ?? [];
  if (tools.length === 0) return;
  const builtIn = tools.flatMap((tool, index) =>
    tool.type === 'function' ? [] : [`tools[${index}]: "${tool.type}" tools are not available`],
  );
  if (builtIn.length > 0) throw refusal(builtIn, NOT_FUNCTION_CALLING);
  const wanted = tools.map((tool, index) => ({ index, name: tool.function?.name ?? tool.name }));
  if (profile.mcp.length === 0) {
    throw refusal(
      [`tools: the model "${profileName}" has no tools the server can call (no MCP servers)`],
      NOT_FUNCTION_CALLING,
    );
  }
  const served = new Set(await listTools(profile));
  // A client may write an MCP tool's own name (`word-count`) or its REPL name (`word_count`).
  const missing = wanted.flatMap(({ index, name }) =>
    name !== undefined && served.has(hostToolName(name))
      ? []
      : [`tools[${index}]: the model "${profileName}" has no tool "${name ?? '(no name)'}"`],
  );
  if (missing.length > 0) {
    throw refusal(missing, `${NOT_FUNCTION_CALLING}: ${[...served].join(', ')}`);
  }
}
