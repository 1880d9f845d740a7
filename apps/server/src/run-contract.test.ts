import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resolveModel } from '@rlm/executor';
import { samplingClient } from '@rlm/mcp/testing';
import {
  DOOR_PARITY_CASES,
  needleHaystack,
  type RequestRecorder,
  startRequestRecorder,
} from '@rlm/testkit';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createExecutorEngine } from './executor-engine.js';
import { createProductionModelResolver } from './resolve-production-model.js';
import { readSse } from './test-support/read-sse.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

// The server is one of the doors onto the runner: what a profile and a request say becomes run
// settings, and a caller chooses only among what the operator configured.

let recorder: RequestRecorder;

beforeEach(async () => {
  recorder = await startRequestRecorder();
});
afterEach(async () => {
  await recorder.close();
});

const OPERATOR_ENV = { OPENAI_API_KEY: 'sk-operator-secret' };

async function offlineServer(profiles: Record<string, object>): Promise<TestServer> {
  return startTestServer({
    engine: createExecutorEngine({
      resolveModel: createProductionModelResolver(OPERATOR_ENV),
      isolation: 'inline',
    }),
    resolveModel: (id) => resolveModel(id, { env: OPERATOR_ENV }),
    config: { profiles: profiles as never },
  });
}

async function runToEnd(server: TestServer, body: object) {
  const created = await server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (created.status !== 202) return { status: created.status, body: await created.json() };
  const { id } = (await created.json()) as { id: string };
  const events = await server.request(`/v1/runs/${id}/events`);
  for await (const message of readSse(events)) if (message.event === 'end') break;
  return { status: 200, body: await (await server.request(`/v1/runs/${id}`)).json() };
}

const task = needleHaystack({ chars: 20_000, seed: 11 });

describe('/v1/runs on the run contract', { timeout: 120_000 }, () => {
  it('runs testkit:needle-finder-grep, which every door accepts', async () => {
    await using server = await offlineServer({ default: { model: 'testkit:needle-finder-grep' } });
    const run = await runToEnd(server, { query: task.query, context: task.context });
    expect(run.body).toMatchObject({ status: 'completed' });
    expect(String((run.body as { answer: string }).answer)).toContain(task.answer);
  });

  it('accepts maxSubcalls 0', async () => {
    await using server = await offlineServer({ default: { model: 'testkit:needle-finder' } });
    const run = await runToEnd(server, {
      query: task.query,
      context: task.context,
      config: { maxSubcalls: 0 },
    });
    expect(run.status).toBe(200);
  });

  it('takes an output schema and answers with JSON it accepts', async () => {
    await using server = await offlineServer({ default: { model: 'testkit:needle-finder' } });
    const run = await runToEnd(server, {
      query: task.query,
      context: task.context,
      outputSchema: { type: 'string', pattern: '^\\d+$' },
    });
    expect(run.body).toMatchObject({ status: 'completed' });
    expect(JSON.parse((run.body as { answer: string }).answer)).toBe(task.answer);
  });

  it('runs a coordinator profile with a driver', async () => {
    await using server = await offlineServer({
      default: {
        model: 'testkit:needle-finder',
        mode: 'coordinator',
        maxDepth: 2,
        drivers: ['delegation-first'],
      },
    });
    const run = await runToEnd(server, { query: task.query, context: task.context });
    expect(run.body).toMatchObject({ status: 'completed' });
  });

  it('refuses a body that names an endpoint or a key, and nothing is sent anywhere', async () => {
    await using server = await offlineServer({ default: { model: 'testkit:needle-finder' } });
    for (const body of [
      { query: 'q', context: 'c', model: `openai-compatible/x@${recorder.url}` },
      { query: 'q', context: 'c', profile: `openai-compatible/x@${recorder.url}` },
      { query: 'q', context: 'c', config: { baseUrl: recorder.url } },
    ]) {
      const run = await runToEnd(server, body);
      expect([400, 404]).toContain(run.status);
    }
    expect(recorder.hits).toEqual([]);
  });
});

describe('chat completions and /mcp on the run contract', { timeout: 120_000 }, () => {
  it('refuses a chat model that names an endpoint; nothing reaches it', async () => {
    await using server = await offlineServer({ default: { model: 'testkit:needle-finder' } });
    const client = new OpenAI({
      baseURL: `${server.url}/v1`,
      apiKey: server.userKey,
      maxRetries: 0,
    });
    const refused = await client.chat.completions
      .create({
        model: `openai-compatible/x@${recorder.url}`,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect(recorder.hits).toEqual([]);
  });

  it('refuses an rlm_query model that names an endpoint; nothing reaches it', async () => {
    await using server = await offlineServer({ default: { model: 'testkit:needle-finder' } });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${server.userKey}` } },
    });
    const client = samplingClient('agent', undefined, { model: 'client' });
    await client.connect(transport);
    try {
      const call = async (args: Record<string, unknown>) =>
        (await client.callTool({ name: 'rlm_query', arguments: args })) as CallToolResult;
      const refused = await call({
        query: 'q',
        context: 'c',
        model: `openai-compatible/x@${recorder.url}`,
      });
      expect(refused.isError).toBe(true);
      const answered = await call({ query: task.query, context: task.context, mode: 'solver' });
      expect(answered.isError).toBeUndefined();
      // A profile fixes the mode: asking for another is refused, not silently ignored.
      const otherMode = await call({ query: 'q', context: 'c', mode: 'coordinator' });
      expect(otherMode.isError).toBe(true);
      expect(JSON.stringify(otherMode.content)).toContain('runs in solver mode');
      const typed = await call({
        query: task.query,
        context: task.context,
        outputSchema: { type: 'string', pattern: '^[0-9]+$' },
      });
      expect((typed.structuredContent as { answer: string }).answer).toBe(
        JSON.stringify(task.answer),
      );
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
    expect(recorder.hits).toEqual([]);
  });
});

describe('the door-parity cases through /v1/runs', {
  timeout: 300_000,
}, () => {
  for (const { name, settings, query, context, expected } of DOOR_PARITY_CASES) {
    it(`gives the runner’s outcome for ${name}`, async () => {
      const profile = {
        model: settings.model,
        ...(settings.repl === undefined ? {} : { repl: settings.repl }),
        ...(settings.mode === undefined ? {} : { mode: settings.mode }),
        ...(settings.limits?.maxDepth === undefined ? {} : { maxDepth: settings.limits.maxDepth }),
      };
      await using server = await offlineServer({ default: profile });
      const maxSubcalls = settings.limits?.maxSubcalls;
      const run = await runToEnd(server, {
        query,
        context,
        ...(maxSubcalls === undefined ? {} : { config: { maxSubcalls } }),
        ...(settings.outputSchema === undefined ? {} : { outputSchema: settings.outputSchema }),
      });
      const body = run.body as { status: string; answer: string | null };
      expect({ status: body.status, answer: body.answer }).toEqual(expected);
    });
  }
});

/** The operator's side of a case: a profile for its model, REPL, mode and depth; maxima for the rest. */
function parityServer(settings: (typeof DOOR_PARITY_CASES)[number]['settings']) {
  const { maxDepth, maxSubcalls } = settings.limits ?? {};
  return startTestServer({
    engine: createExecutorEngine({
      resolveModel: createProductionModelResolver(OPERATOR_ENV),
      isolation: 'inline',
    }),
    config: {
      profiles: {
        default: {
          model: settings.model,
          ...(settings.repl === undefined ? {} : { repl: settings.repl }),
          ...(settings.mode === undefined ? {} : { mode: settings.mode }),
          ...(maxDepth === undefined ? {} : { maxDepth }),
        },
      } as never,
      ...(maxSubcalls === undefined ? {} : { maxima: { maxSubcalls } as never }),
    },
  });
}

// Chat completions map a request to the run's query (the last user message) and context (the
// `context` extension, else the earlier messages as `{ role, content }`). Given the case's context
// in `context`, the run gets exactly the case's query and context; given it as an earlier message,
// the context is that one message, and the offline models find the needle there too. A run with
// no answer replies with empty `content`; `rlm.status` names how it ended.
describe('the door-parity cases through chat completions', { timeout: 300_000 }, () => {
  for (const { name, settings, query, context, expected } of DOOR_PARITY_CASES) {
    for (const form of ['context', 'messages'] as const) {
      it(`gives the runner’s outcome for ${name} (the context in ${form === 'context' ? '`context`' : 'an earlier message'})`, async () => {
        await using server = await parityServer(settings);
        const response = await server.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'default',
            ...(form === 'context'
              ? { context, messages: [{ role: 'user', content: query }] }
              : {
                  messages: [
                    { role: 'user', content: context },
                    { role: 'user', content: query },
                  ],
                }),
            ...(settings.outputSchema === undefined
              ? {}
              : {
                  response_format: {
                    type: 'json_schema',
                    json_schema: { name: 'answer', schema: settings.outputSchema },
                  },
                }),
          }),
        });
        expect(response.status).toBe(200);
        const body = (await response.json()) as {
          choices: { message: { content: string } }[];
          rlm: { status: string };
        };
        const content = body.choices[0]?.message.content ?? '';
        const answer = content === '' && body.rlm.status !== 'completed' ? null : content;
        expect({ status: body.rlm.status, answer }).toEqual(expected);
      });
    }
  }
});

// The Responses API maps a request as chat completions do (the query from `input`, the context
// from the `context` extension); `text.format` is its `response_format`. A run with no answer is
// `incomplete` with empty text; `rlm.status` names how it ended.
describe('the door-parity cases through /v1/responses', { timeout: 300_000 }, () => {
  for (const { name, settings, query, context, expected } of DOOR_PARITY_CASES) {
    it(`gives the runner’s outcome for ${name}`, async () => {
      await using server = await parityServer(settings);
      const response = await server.request('/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'default',
          context,
          input: query,
          ...(settings.outputSchema === undefined
            ? {}
            : {
                text: {
                  format: { type: 'json_schema', name: 'answer', schema: settings.outputSchema },
                },
              }),
        }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        status: string;
        output: { type: string; content?: { text: string }[] }[];
        rlm: { status: string };
      };
      const message = body.output.find((item) => item.type === 'message');
      const text = message?.content?.map((part) => part.text).join('') ?? '';
      const answer = body.status === 'completed' ? text : null;
      expect({ status: body.rlm.status, answer }).toEqual(expected);
    });
  }
});

describe('the door-parity cases through /mcp', { timeout: 300_000 }, () => {
  for (const { name, settings, query, context, expected } of DOOR_PARITY_CASES) {
    it(`gives the runner’s outcome for ${name}`, async () => {
      // The profile and the server's maxima are the operator's; the rest is the client's to ask.
      await using server = await parityServer(settings);
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server.userKey}` } },
      });
      const client = samplingClient('agent', undefined, { model: 'client' });
      await client.connect(transport);
      try {
        const result = (await client.callTool(
          {
            name: 'rlm_query',
            arguments: {
              query,
              context,
              ...(settings.outputSchema === undefined
                ? {}
                : { outputSchema: settings.outputSchema }),
            },
          },
          undefined,
          { timeout: 240_000 },
        )) as CallToolResult;
        const structured = result.structuredContent as { outcome: string; answer: string | null };
        expect({ status: structured.outcome, answer: structured.answer }).toEqual(expected);
      } finally {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      }
    });
  }
});
