// The tools of the test MCP servers (stdio and Streamable HTTP), registered with the SDK's McpServer.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** A fresh server with the fixture tools; `calls` counts every tool call it received. */
export function createFixtureServer() {
  const calls = [];
  const server = new McpServer({ name: 'rlm-fixture', version: '1.0.0' });
  const seen = (name, args) => calls.push({ name, args });

  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number().describe('first addend'), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => {
      seen('add', { a, b });
      return { content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } };
    },
  );
  server.registerTool(
    'shout',
    {
      description: 'Upper-cases text.',
      inputSchema: { text: z.string(), times: z.number().int().min(1).optional() },
    },
    async ({ text, times }) => {
      seen('shout', { text });
      return {
        content: [
          { type: 'text', text: text.toUpperCase() },
          { type: 'text', text: '!'.repeat(times ?? 1) },
        ],
      };
    },
  );
  server.registerTool(
    'word-count',
    { description: 'Counts the words of a text.', inputSchema: { text: z.string() } },
    async ({ text }) => {
      seen('word-count', { text });
      return { content: [{ type: 'text', text: String(text.split(/\s+/).filter(Boolean).length) }] };
    },
  );
  server.registerTool('explode', { description: 'Always fails.' }, async () => {
    seen('explode', {});
    return { isError: true, content: [{ type: 'text', text: 'the tool broke: disk on fire' }] };
  });
  server.registerTool(
    'lorem',
    { description: 'Returns n characters of text.', inputSchema: { n: z.number().int() } },
    async ({ n }) => {
      seen('lorem', { n });
      return { content: [{ type: 'text', text: 'x'.repeat(n) }] };
    },
  );
  server.registerTool(
    'wait',
    { description: 'Answers after ms milliseconds.', inputSchema: { ms: z.number().int() } },
    async ({ ms }, extra) => {
      seen('wait', { ms });
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: extra.signal.aborted ? 'cancelled' : 'waited' }] };
    },
  );
  server.registerTool('call_count', { description: 'How many calls this server received.' }, async () => ({
    content: [{ type: 'text', text: String(calls.length) }],
    structuredContent: { count: calls.length, names: calls.map((call) => call.name) },
  }));
  return { server, calls };
}
