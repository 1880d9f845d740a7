import { fileURLToPath } from 'node:url';
import { scriptedModel } from '@rlm/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from '../executor-engine.js';
import { startTestServer } from '../test-support/start-test-server.js';

// @rlm/mcp's own test server (the SDK's McpServer over stdio): tools add, shout, word-count, …
const MCP_SERVER = fileURLToPath(
  new URL('../../../../packages/mcp/src/client/__fixtures__/stdio-server.mjs', import.meta.url),
);

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
} as const;

describe('chat completions with tools', { timeout: 60_000 }, () => {
  it('refuses tools with a 400 naming the field when the model has no MCP servers', async () => {
    const model = scriptedModel(['FINAL(sunny)']);
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    });
    const openai = new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: server.userKey,
      maxRetries: 0,
    });
    const refused = await openai.chat.completions
      .create({
        model: 'default',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    const error = (refused as InstanceType<typeof OpenAI.BadRequestError>).error as {
      code: string;
      message: string;
      details: { issues: string[] };
    };
    expect(error.code).toBe('protocol.invalid_message');
    expect(error.details.issues).toEqual([
      'tools: the model "default" has no tools the server can call (no MCP servers)',
    ]);
    expect(error.message).toContain('never replies with tool_calls');
    // Streamed too: the 400 comes before any chunk, so create() rejects.
    const streamed = await openai.chat.completions
      .create({
        model: 'default',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [weatherTool],
        stream: true,
      })
      .catch((caught: unknown) => caught);
    expect(streamed).toBeInstanceOf(OpenAI.BadRequestError);
    // Refused before a run exists.
    expect(model.requests).toEqual([]);
    const runs = (await (await server.request('/v1/runs')).json()) as { data: unknown[] };
    expect(runs.data).toEqual([]);
  });

  it('refuses built-in tool types', async () => {
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => scriptedModel([]), isolation: 'inline' }),
    });
    const response = await server.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'default',
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ type: 'web_search' }],
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { details: { issues: string[] } } };
    expect(body.error.details.issues).toEqual(['tools[0]: "web_search" tools are not available']);
  });

  it('accepts tools the profile’s MCP server has, and refuses the ones it has not', async () => {
    const model = scriptedModel([repl('const r = await add({ a: 1, b: 2 })'), 'FINAL_VAR(r)']);
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
      config: {
        profiles: {
          default: { model: 'scripted/model', mcp: [`"${process.execPath}" "${MCP_SERVER}"`] },
        },
      },
    });
    const openai = new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: server.userKey,
      maxRetries: 0,
    });
    const tool = (name: string) => ({ type: 'function' as const, function: { name } });
    const completion = await openai.chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'add 1 and 2' }],
      // The MCP name and the REPL name of word-count both name it.
      tools: [tool('add'), tool('word-count'), tool('word_count')],
    });
    expect(completion.choices[0]?.message.content).toBe('{"sum":3}');
    const refused = await openai.chat.completions
      .create({
        model: 'default',
        messages: [{ role: 'user', content: 'x' }],
        tools: [tool('add'), weatherTool],
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    const error = (refused as InstanceType<typeof OpenAI.BadRequestError>).error as {
      message: string;
      details: { issues: string[] };
    };
    expect(error.details.issues).toEqual([
      'tools[1]: the model "default" has no tool "get_weather"',
    ]);
    expect(error.message).toContain('add, shout, word_count');
  });
});
