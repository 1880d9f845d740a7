import { fileURLToPath } from 'node:url';
import type { LanguageModel } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { parseServerConfig } from './server-config.js';
import { startTestServer } from './test-support/start-test-server.js';

// @rlm/mcp's own test server (the SDK's McpServer over stdio), started for each run.
const MCP_SERVER = fileURLToPath(
  new URL('../../../packages/mcp/src/client/__fixtures__/stdio-server.mjs', import.meta.url),
);

function engineWith(model: LanguageModel) {
  return createExecutorEngine({ resolveModel: () => model, isolation: 'inline' });
}

function client(url: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
}

const repl = (code: string) => `\`\`\`repl\n${code}\n\`\`\``;

const cityFormat = {
  type: 'json_schema',
  json_schema: {
    name: 'city',
    strict: true,
    schema: {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
      required: ['city', 'population'],
      additionalProperties: false,
    },
  },
} as const;

describe('chat completions with response_format', { timeout: 60_000 }, () => {
  it('answers json_schema requests with JSON the schema accepts, refusing others on the way', async () => {
    const model = scriptedModel([
      repl('const found = { city: "Paris", population: "2.1M" }'),
      'FINAL_VAR(found)',
      repl('found.population = 2100000'),
      'FINAL_VAR(found)',
    ]);
    await using server = await startTestServer({ engine: engineWith(model) });
    const completion = await client(server.url, server.userKey).chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'Largest city of France?' }],
      response_format: cityFormat,
    });
    const content = completion.choices[0]?.message.content ?? '';
    expect(JSON.parse(content)).toEqual({ city: 'Paris', population: 2_100_000 });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(model.requests[0]?.system).toContain('"population": {\n      "type": "integer"');
    expect(model.requests[2]?.messages.at(-2)?.content).toContain('at population');
  });

  it('takes json_object as any JSON object', async () => {
    const model = scriptedModel([repl('print(1)'), 'FINAL(42)', 'FINAL({"n": 42})']);
    await using server = await startTestServer({ engine: engineWith(model) });
    const completion = await client(server.url, server.userKey).chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'n?' }],
      response_format: { type: 'json_object' },
    });
    expect(completion.choices[0]?.message.content).toBe('{"n":42}');
  });

  it('refuses a schema it cannot check with 400 before any run exists', async () => {
    const model = scriptedModel([]);
    await using server = await startTestServer({ engine: engineWith(model) });
    const response = await server.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // A conditional schema (if/then/else), written as text: `then` as a key makes a thenable.
      body: `{"model": "default", "messages": [{"role": "user", "content": "x"}],
        "response_format": {"type": "json_schema",
          "json_schema": {"name": "x", "schema": {"if": {"type": "string"}, "then": {}}}}}`,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('response_format.json_schema.schema');
    expect(model.requests).toEqual([]);
  });
});

describe("a profile's MCP servers", { timeout: 60_000 }, () => {
  it('gives every run of the profile the server’s tools', async () => {
    const model = scriptedModel([repl('const r = await add({ a: 1, b: 2 })'), 'FINAL_VAR(r)']);
    await using server = await startTestServer({
      engine: engineWith(model),
      config: {
        profiles: {
          default: { model: 'scripted/model', mcp: [`"${process.execPath}" "${MCP_SERVER}"`] },
        },
      },
    });
    const completion = await client(server.url, server.userKey).chat.completions.create({
      model: 'default',
      messages: [{ role: 'user', content: 'add' }],
    });
    expect(completion.choices[0]?.message.content).toBe('{"sum":3}');
    expect(model.requests[0]?.system).toContain('`await add({ a: number, b: number })`');
  });

  it('refuses a profile whose MCP command line is shell syntax, naming the field', () => {
    expect(() =>
      parseServerConfig({
        profiles: { default: { model: 'm', mcp: ['server | tee log'] } },
      }),
    ).toThrow(/shell syntax[\s\S]*at profiles\.default\.mcp\[0\]/);
  });
});
