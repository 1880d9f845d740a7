import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MODEL_ID } from '@rlm/executor/defaults';
import { parseMcpCommandLine } from '@rlm/mcp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The first fenced block of `language` after the paragraph that starts with `marker`. */
function blockAfter(marker: string, language: string): string {
  const start = README.indexOf(marker);
  expect(start, `README has no "${marker}"`).toBeGreaterThanOrEqual(0);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(README.slice(start));
  expect(match, `no ${language} block after "${marker}"`).not.toBeNull();
  return match?.[1] ?? '';
}

interface ServerEntry {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

function fromClaudeCode(line: string): ServerEntry {
  const { command, args } = parseMcpCommandLine(line.trim());
  expect([command, ...args.slice(0, 3)]).toEqual(['claude', 'mcp', 'add', 'rlm']);
  const separator = args.indexOf('--');
  const env: Record<string, string> = {};
  for (let index = 3; index < separator; index++) {
    if (args[index] === '-e') {
      const [name = '', ...value] = (args[index + 1] ?? '').split('=');
      env[name] = value.join('=');
    }
  }
  const [server = '', ...rest] = args.slice(separator + 1);
  return { command: server, args: rest, env };
}

function fromConfigFile(json: string): ServerEntry {
  const config = JSON.parse(json) as { mcpServers: Record<string, ServerEntry> };
  const entry = config.mcpServers['rlm'];
  expect(entry).toBeDefined();
  return entry as ServerEntry;
}

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

describe('the rlm mcp set-ups in the README', () => {
  it.each([
    ['Claude Code', () => fromClaudeCode(blockAfter('**Claude Code**', 'sh'))],
    ['Claude Desktop', () => fromConfigFile(blockAfter('**Claude Desktop**', 'json'))],
    ['Cursor', () => fromConfigFile(blockAfter('**Cursor**', 'json'))],
  ])('%s starts a server whose tools work', async (_client, entry) => {
    const { command, args, env = {} } = entry();
    expect([command, args[0]]).toEqual(['rlm', 'mcp']);
    // A set-up that names a root model names the one a bare `rlm mcp` would use.
    const model = args.indexOf('--model');
    if (model >= 0) expect(args[model + 1]).toBe(DEFAULT_MODEL_ID);
    const client = new Client({ name: 'readme-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN_PATH, ...args],
        cwd: sandbox.dir,
        env: { PATH: process.env['PATH'] ?? '', ...sandbox.env, ...env },
        stderr: 'pipe',
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('repl_exec');
      await client.callTool({ name: 'context_load', arguments: { text: 'from the README' } });
      const block = (await client.callTool({
        name: 'repl_exec',
        arguments: { code: 'print(context.toUpperCase())' },
      })) as CallToolResult;
      expect(block.content).toEqual([{ type: 'text', text: 'FROM THE README' }]);
    } finally {
      await client.close();
    }
  });
});
