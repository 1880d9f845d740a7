import { fileURLToPath } from 'node:url';
import { createRLM } from '@rlm/executor';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { startHttpFixture } from './__fixtures__/http-server.mjs';
import { mcpTools } from './mcp-tools.js';

const STDIO_SERVER = fileURLToPath(new URL('./__fixtures__/stdio-server.mjs', import.meta.url));

function repl(code: string): string {
  return `Next step:\n\`\`\`repl\n${code}\n\`\`\``;
}

describe('MCP tools in an RLM run', () => {
  it('lets the model call a stdio server’s tools from a repl block, listed in its prompt', async () => {
    await using mcp = await mcpTools({ command: process.execPath, args: [STDIO_SERVER] });
    const model = scriptedModel([
      repl('const r = await add({ a: 40, b: 2 });\nprint(r.sum)'),
      repl('const words = await word_count({ text: context });\nprint(words)'),
      'FINAL_VAR(words)',
    ]);
    const rlm = createRLM({ model, tools: mcp.tools, isolation: 'inline' });
    const result = await rlm.completion('three little words');
    expect(result).toMatchObject({ status: 'completed', answer: '3' });
    const system = model.requests[0]?.system ?? '';
    expect(system).toContain(
      '`await add({ a: number, b: number })`: Adds two numbers. Parameters: `a`: first addend.',
    );
    expect(system).toContain('`await word_count({ text: string })`');
    expect(model.requests[1]?.messages.at(-2)?.content).toContain('42');
  });

  it('shows the model a refused argument and a failing tool as errors in its block output', async () => {
    await using mcp = await mcpTools({ command: process.execPath, args: [STDIO_SERVER] });
    const model = scriptedModel([
      repl('await add({ a: "forty", b: 2 })'),
      repl('await explode()'),
      'FINAL(done)',
    ]);
    const rlm = createRLM({ model, tools: mcp.tools, isolation: 'inline' });
    expect((await rlm.completion('ctx')).answer).toBe('done');
    const first = model.requests[1]?.messages.at(-2)?.content ?? '';
    expect(first).toContain('add: invalid arguments, the call was not made: a: must be number');
    const second = model.requests[2]?.messages.at(-2)?.content ?? '';
    expect(second).toContain('explode failed: the tool broke: disk on fire');
  });

  it('calls a Streamable HTTP server’s tools from a repl block', async () => {
    const server = await startHttpFixture();
    try {
      await using mcp = await mcpTools({ url: server.url }, { include: ['shout'] });
      const model = scriptedModel([
        repl('const loud = await shout({ text: context })'),
        'FINAL_VAR(loud)',
      ]);
      const rlm = createRLM({ model, tools: mcp.tools, isolation: 'inline' });
      expect((await rlm.completion('hello')).answer).toBe('HELLO\n!');
    } finally {
      await server.close();
    }
  });
});
