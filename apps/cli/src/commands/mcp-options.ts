import type { McpServerSpec } from '@rlm/mcp';
import { RlmError } from '@rlm/protocol';
import type { Command } from 'commander';
import { collect } from './collect-option.js';

/**
 * `--mcp "<command line>"`, `--mcp-url URL` and `--mcp-header "name: value"`, each repeatable,
 * and `--mcp-prefix PREFIX` for the REPL names of all their tools.
 */
export function addMcpOptions(command: Command): Command {
  return command
    .option(
      '--mcp <command>',
      'start an MCP server (a command line, quoted) and give its tools to the REPL; repeatable',
      collect,
    )
    .option('--mcp-url <url>', 'an MCP server over Streamable HTTP; repeatable', collect)
    .option(
      '--mcp-header <header>',
      'a header ("name: value") sent to every --mcp-url server; repeatable',
      collect,
    )
    .option(
      '--mcp-prefix <prefix>',
      'put before the REPL name of every --mcp/--mcp-url tool (e.g. mcp_), for names the REPL reserves',
    );
}

const IDENTIFIER_START = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * `--mcp-prefix`, checked: it starts every MCP tool's REPL name, so it must start a JavaScript
 * name, and it needs a server to apply to.
 * @throws RlmError `cli.usage` naming the flag
 */
export function readMcpPrefix(options: Record<string, unknown>): string | undefined {
  const prefix = options['mcpPrefix'] as string | undefined;
  if (prefix === undefined) return undefined;
  if (!IDENTIFIER_START.test(prefix)) {
    throw new RlmError({
      code: 'cli.usage',
      message: `--mcp-prefix ${prefix} cannot start a JavaScript name; pass letters, digits, _ or $, not starting with a digit, such as mcp_.`,
      details: { option: '--mcp-prefix' },
    });
  }
  const servers = [
    ...((options['mcp'] as string[] | undefined) ?? []),
    ...((options['mcpUrl'] as string[] | undefined) ?? []),
  ];
  if (servers.length === 0) {
    throw new RlmError({
      code: 'cli.usage',
      message: '--mcp-prefix goes with --mcp or --mcp-url; pass the server too.',
      details: { option: '--mcp-prefix' },
    });
  }
  return prefix;
}

function headersOf(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (name === '' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new RlmError({
        code: 'cli.usage',
        message: `--mcp-header expects "name: value", such as "authorization: Bearer …"; got "${line.slice(0, 40)}"`,
        details: { option: '--mcp-header' },
      });
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * The MCP servers the flags name, in order: every `--mcp` command line, then every `--mcp-url`
 * (with the `--mcp-header` headers).
 * @throws RlmError `config.invalid` for a command line with shell syntax; `cli.usage` for a bad header
 */
export async function readMcpOptions(options: Record<string, unknown>): Promise<McpServerSpec[]> {
  const lines = (options['mcp'] as string[] | undefined) ?? [];
  const urls = (options['mcpUrl'] as string[] | undefined) ?? [];
  const headers = headersOf((options['mcpHeader'] as string[] | undefined) ?? []);
  if (urls.length === 0 && Object.keys(headers).length > 0) {
    throw new RlmError({
      code: 'cli.usage',
      message: '--mcp-header goes with --mcp-url; pass the server URL too.',
      details: { option: '--mcp-header' },
    });
  }
  if (lines.length === 0 && urls.length === 0) return [];
  const { parseMcpCommandLine } = await import('@rlm/mcp');
  return [
    ...lines.map((line) => parseMcpCommandLine(line)),
    ...urls.map((url) => (Object.keys(headers).length === 0 ? { url } : { url, headers })),
  ];
}

/**
 * The MCP flags as `rlm resume` takes them again (runs do not record their servers). A header's
 * value is left out, since it is usually a secret and the line is printed: `name: …` shows what
 * to fill in.
 */
export function mcpResumeFlags(options: Record<string, unknown>): string[] {
  const flags: string[] = [];
  for (const line of (options['mcp'] as string[] | undefined) ?? []) flags.push('--mcp', line);
  for (const url of (options['mcpUrl'] as string[] | undefined) ?? []) flags.push('--mcp-url', url);
  for (const header of (options['mcpHeader'] as string[] | undefined) ?? []) {
    const colon = header.indexOf(':');
    flags.push('--mcp-header', `${colon < 0 ? header : header.slice(0, colon)}: …`);
  }
  const prefix = options['mcpPrefix'];
  if (typeof prefix === 'string') flags.push('--mcp-prefix', prefix);
  return flags;
}
