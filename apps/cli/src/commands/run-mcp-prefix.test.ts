import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeAnthropicServer, type FakeModelRequest, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

/** `rlm mcp` itself as the MCP server: its `rlm_query` tool is a reserved REPL name. */
const RLM_MCP = `"${process.execPath}" "${BIN_PATH}" mcp --model testkit:needle-finder`;

let server: FakeAnthropicServer;
let sandbox: Sandbox;
let requests: FakeModelRequest[];

beforeAll(async () => {
  server = await startFakeAnthropic({
    script: (request: FakeModelRequest) => {
      requests.push(request);
      return 'FINAL(done)';
    },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  requests = [];
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 5\n');
});
afterEach(() => sandbox.dispose());

function run(args: string[]) {
  return runCliInProcess(['run', 'What is the magic number?', '--context', 'notes.txt', ...args], {
    cwd: sandbox.dir,
    env: {
      ...sandbox.env,
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: server.url,
      RLM_MODEL: 'anthropic/claude-sonnet-5-5',
    },
  });
}

describe('rlm run --mcp-prefix', () => {
  it('names --mcp-prefix when a server tool would take a reserved REPL name', async () => {
    const result = await run(['--mcp', RLM_MCP]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tool "rlm_query" would be rlm_query, a reserved name');
    expect(result.stderr).toContain('pass --mcp-prefix, such as --mcp-prefix mcp_');
    expect(result.stderr).not.toContain('pass a prefix such as');
    expect(requests).toEqual([]);
  });

  it('puts the prefix before every tool of the servers, so rlm mcp can be one', async () => {
    const result = await run(['--mcp', RLM_MCP, '--mcp-prefix', 'mcp_']);
    expect(result.stderr).not.toContain('rlm: ');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('done\n');
    expect(requests[0]?.system).toContain('`await mcp_rlm_query(');
  });

  it('refuses a prefix that cannot start a JavaScript name, naming the flag', async () => {
    const result = await run(['--mcp', RLM_MCP, '--mcp-prefix', '1-x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'rlm: --mcp-prefix 1-x cannot start a JavaScript name; pass letters, digits, _ or $, not starting with a digit, such as mcp_.\n',
    );
  });

  it('refuses a prefix without a server to apply it to', async () => {
    const result = await run(['--mcp-prefix', 'mcp_']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'rlm: --mcp-prefix goes with --mcp or --mcp-url; pass the server too.\n',
    );
  });
});
