import { isReservedName, RlmError } from '@rlm/protocol';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The REPL name of an MCP tool: `prefix` + its name with every character a JavaScript
 * identifier cannot hold turned into `_` (`word-count` → `word_count`).
 */
export function hostToolName(mcpName: string, prefix = ''): string {
  const name = `${prefix}${mcpName.replace(/[^A-Za-z0-9_$]/g, '_')}`;
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * The REPL names of a server's tools, by MCP name.
 * @throws RlmError `config.invalid` when two tools get one name or a name is reserved
 */
export function hostToolNames(
  mcpNames: readonly string[],
  { prefix = '', server }: { prefix?: string | undefined; server: string },
): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Map<string, string>();
  const issues: string[] = [];
  for (const mcpName of mcpNames) {
    const name = hostToolName(mcpName, prefix);
    const other = taken.get(name);
    if (other !== undefined) {
      issues.push(
        `tools "${other}" and "${mcpName}" both become ${name}; pass a prefix or include`,
      );
    } else if (!IDENTIFIER.test(name) || isReservedName(name)) {
      issues.push(
        `tool "${mcpName}" would be ${name}, a reserved name; pass a prefix such as "mcp_"`,
      );
    }
    taken.set(name, mcpName);
    names.set(mcpName, name);
  }
  if (issues.length > 0) {
    throw new RlmError({
      code: 'config.invalid',
      message: `The tools of MCP server ${server} cannot all be REPL functions:\n  - ${issues.join('\n  - ')}`,
      details: { source: `MCP server ${server}`, issues },
    });
  }
  return names;
}
