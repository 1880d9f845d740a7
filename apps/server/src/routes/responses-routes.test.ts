import { needleHaystack } from '@rlm/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from '../executor-engine.js';
import { createProductionModelResolver } from '../resolve-production-model.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

/** A server whose default profile is an offline policy run by the real executor. */
function offlineServer(): Promise<TestServer> {
  return startTestServer({
    engine: createExecutorEngine({
      resolveModel: createProductionModelResolver({}),
      isolation: 'inline',
    }),
    config: { profiles: { default: { model: 'testkit:needle-finder' } } },
  });
}

function client(server: TestServer): OpenAI {
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.userKey, maxRetries: 0 });
}

const task = needleHaystack({ chars: 30_000, seed: 9 });

/** `context` is this server's extension of the request: the text the RLM works over. */
const withContext = <T extends object>(body: T): T => ({ ...body, context: task.context });

const digits = {
  type: 'json_schema',
  name: 'magic_number',
  strict: true,
  schema: { type: 'string', pattern: '^\\d+$' },
} as const;

describe('POST /v1/responses with the official openai client', { timeout: 120_000 }, () => {
  it('answers a text request as one output_text message', async () => {
    await using server = await offlineServer();
    const response = await client(server).responses.create(
      withContext({ model: 'default', input: task.query }),
    );
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe(task.answer);
    expect(response.output).toEqual([
      expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed' }),
    ]);
    expect(response.usage?.total_tokens).toBeGreaterThan(0);
    const runId = (response as unknown as { rlm: { runId: string } }).rlm.runId;
    expect(response.id).toBe(`resp_${runId}`);
    const run = (await (await server.request(`/v1/runs/${runId}`)).json()) as { status: string };
    expect(run.status).toBe('completed');
  });

  it('answers a json_schema request with JSON the schema accepts (responses.parse)', async () => {
    await using server = await offlineServer();
    const response = await client(server).responses.parse(
      withContext({ model: 'default', input: task.query, text: { format: digits } }),
    );
    expect(response.output_parsed).toBe(task.answer);
    expect(response.text?.format).toMatchObject({ type: 'json_schema', name: 'magic_number' });
  });

  it('streams typed events: progress as reasoning summary, then the answer, then completed', async () => {
    await using server = await offlineServer();
    const stream = await client(server).responses.create({
      model: 'default',
      instructions: 'Answer with the number only.',
      // Without the extension, the other messages are the context.
      input: [
        { role: 'developer', content: task.context },
        { role: 'user', content: [{ type: 'input_text', text: task.query }] },
      ],
      stream: true,
    });
    const types: string[] = [];
    const sequence: number[] = [];
    let progress = '';
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === 'response.reasoning_summary_text.delta') progress += event.delta;
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types.slice(0, 3)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
    ]);
    expect(types.at(-1)).toBe('response.completed');
    expect(sequence).toEqual(types.map((_, index) => index));
    expect(types.lastIndexOf('response.reasoning_summary_text.delta')).toBeLessThan(
      types.indexOf('response.output_text.delta'),
    );
    expect(progress).toContain('Turn 2\n');
    expect(progress).toMatch(/llm_query \(testkit.needle-finder\)/);
    expect(text).toBe(task.answer);
    expect(completed?.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(completed?.usage?.output_tokens).toBeGreaterThan(0);
  });

  it('streams a json_schema answer through responses.stream', async () => {
    await using server = await offlineServer();
    const stream = client(server).responses.stream(
      withContext({ model: 'default', input: task.query, text: { format: digits } }),
    );
    let progressDeltas = 0;
    stream.on('response.reasoning_summary_text.delta', () => {
      progressDeltas += 1;
    });
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    // The SDK parses only zod-made formats itself: the answer is the message's JSON text.
    const message = final.output.find((item) => item.type === 'message');
    const part = message?.type === 'message' ? message.content[0] : undefined;
    expect(part?.type === 'output_text' && JSON.parse(part.text)).toBe(task.answer);
    expect(progressDeltas).toBeGreaterThan(0);
  });

  it('refuses tools, unknown models and server-kept conversation state before any run', async () => {
    await using server = await offlineServer();
    const openai = client(server);
    const refusal = (request: Promise<unknown>) => request.catch((error: unknown) => error);
    const tools = await refusal(
      openai.responses.create({
        model: 'default',
        input: 'x',
        tools: [{ type: 'function', name: 'lookup', parameters: {}, strict: true }],
      }),
    );
    expect(tools).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tools as { error: { details: unknown } }).error.details).toEqual({
      issues: ['tools: the model "default" has no tools the server can call (no MCP servers)'],
    });
    const model = await refusal(openai.responses.create({ model: 'nope', input: 'x' }));
    expect(model).toBeInstanceOf(OpenAI.NotFoundError);
    const previous = await refusal(
      openai.responses.create({ model: 'default', input: 'x', previous_response_id: 'resp_1' }),
    );
    expect(previous).toBeInstanceOf(OpenAI.BadRequestError);
    expect((previous as Error).message).toContain('previous_response_id');
    const runs = (await (await server.request('/v1/runs')).json()) as { data: unknown[] };
    expect(runs.data).toEqual([]);
  });
});
