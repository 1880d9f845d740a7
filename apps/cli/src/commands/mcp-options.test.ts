import { describe, expect, it } from 'vitest';
import { mcpResumeFlags, readMcpOptions } from './mcp-options.js';
import { resumeCommandLine } from './resume-command-line.js';

describe('readMcpOptions', () => {
  it('gives the command lines, then the URLs with the headers', async () => {
    const servers = await readMcpOptions({
      mcp: ['node "my server.mjs" --verbose'],
      mcpUrl: ['http://127.0.0.1:3000/mcp'],
      mcpHeader: ['authorization: Bearer t0k'],
    });
    expect(servers).toEqual([
      { command: 'node', args: ['my server.mjs', '--verbose'] },
      { url: 'http://127.0.0.1:3000/mcp', headers: { authorization: 'Bearer t0k' } },
    ]);
  });

  it('refuses a header without a name, or without a URL to send it to', async () => {
    await expect(
      readMcpOptions({ mcpUrl: ['http://127.0.0.1/mcp'], mcpHeader: ['no colon'] }),
    ).rejects.toMatchObject({ code: 'cli.usage', details: { option: '--mcp-header' } });
    await expect(readMcpOptions({ mcpHeader: ['x-key: 1'] })).rejects.toMatchObject({
      code: 'cli.usage',
    });
  });
});

describe('the resume command of a run with MCP servers', () => {
  it('passes the servers again (they are not recorded), never a header value', () => {
    const line = resumeCommandLine({
      runId: 'r1',
      contexts: ['notes.txt'],
      flags: mcpResumeFlags({
        mcp: ['node "my server.mjs"'],
        mcpUrl: ['https://tools.example.com/mcp'],
        mcpHeader: ['authorization: Bearer s3cret'],
      }),
    });
    expect(line).toBe(
      `rlm resume r1 -c notes.txt --mcp 'node "my server.mjs"' --mcp-url https://tools.example.com/mcp --mcp-header 'authorization: …'`,
    );
    expect(line).not.toContain('s3cret');
  });

  it('passes --mcp-prefix again', () => {
    expect(mcpResumeFlags({ mcp: ['rlm mcp'], mcpPrefix: 'mcp_' })).toEqual([
      '--mcp',
      'rlm mcp',
      '--mcp-prefix',
      'mcp_',
    ]);
  });

  it('adds nothing for a run without MCP servers', () => {
    expect(resumeCommandLine({ runId: 'r1', contexts: [], flags: mcpResumeFlags({}) })).toBe(
      'rlm resume r1',
    );
  });
});
