import { parseSchema, RlmError } from '@rlm/protocol';
import { parse as parseShell } from 'shell-quote';
import { z } from 'zod';

/** An MCP server started as a child process and spoken to over its stdin and stdout. */
export const mcpStdioServerSchema = z.strictObject({
  /** The executable, found on `PATH` like a shell would. */
  command: z.string().min(1, 'command must name an executable'),
  args: z.array(z.string()).default([]),
  /**
   * Variables added to the child's environment. The child gets only these and a few safe ones
   * (`PATH`, `HOME`, …), never the caller's whole environment, so keys do not leak by default.
   */
  env: z.record(z.string(), z.string()).optional(),
  /** The child's working directory. @default the current one */
  cwd: z.string().min(1).optional(),
});

/** An MCP server reached over Streamable HTTP. */
export const mcpHttpServerSchema = z.strictObject({
  /** The server's MCP endpoint, such as `https://tools.example.com/mcp`. */
  url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
  /** Sent with every request (an `authorization` header, …); never logged or recorded. */
  headers: z.record(z.string(), z.string()).optional(),
});

/** Where an MCP server is: a command to start, or a URL. */
export const mcpServerSpecSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema], {
  error: 'expected { command, args?, env?, cwd? } or { url, headers? }',
});

/** An MCP server as callers write it. */
export type McpServerSpec = z.input<typeof mcpServerSpecSchema>;
/** An MCP server after validation. */
export type ResolvedMcpServerSpec = z.output<typeof mcpServerSpecSchema>;

/**
 * Validates a server spec.
 * @throws RlmError `config.invalid` naming the bad field
 */
export function parseMcpServerSpec(spec: unknown): ResolvedMcpServerSpec {
  return parseSchema(mcpServerSpecSchema, spec, { what: 'MCP server', code: 'config.invalid' });
}

/**
 * A command line (`npx -y @scope/server --root "my dir"`) as a stdio server spec, split the way a
 * POSIX shell splits words, with quotes. The command starts directly, with no shell: `$NAME`
 * stays as written (nothing is expanded), and pipes, redirections, globs and comments are refused.
 *
 * @throws RlmError `config.invalid` for an empty line or shell syntax
 * @example
 * parseMcpCommandLine('node server.mjs --verbose'); // { command: 'node', args: ['server.mjs', '--verbose'] }
 */
export function parseMcpCommandLine(line: string): { command: string; args: string[] } {
  const issue = (text: string) =>
    new RlmError({
      code: 'config.invalid',
      message: `Invalid MCP command line "${line}": ${text}`,
      details: { source: 'MCP command line', issues: [text] },
    });
  const words: string[] = [];
  for (const token of parseShell(line, (name) => `$${name}`)) {
    if (typeof token !== 'string') {
      throw issue('pipes, redirections, globs and comments are shell syntax; give one command');
    }
    words.push(token);
  }
  const [command, ...args] = words;
  if (command === undefined || command === '')
    throw issue('expected a command such as "node server.mjs"');
  return { command, args };
}

/** How errors name a server: the command, or the URL without its query, never headers or env. */
export function describeMcpServer(spec: ResolvedMcpServerSpec): string {
  if ('command' in spec) return [spec.command, ...spec.args].join(' ');
  const url = new URL(spec.url);
  return `${url.origin}${url.pathname}`;
}
