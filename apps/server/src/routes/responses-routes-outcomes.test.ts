import { RlmError } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer } from '../test-support/start-test-server.js';

function client(url: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 });
}

const providerDown = () =>
  new RlmError({
    code: 'model.overloaded',
    message: 'upstream overloaded',
    details: { status: 529 },
  });

describe('/v1/responses when the run does not answer', () => {
  it('is incomplete, with empty text, when the run stops at a limit without an answer', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(() => 'still thinking')),
      config: { profiles: { default: { model: 'scripted/model', maxIterations: 2 } } },
    });
    const response = await client(server.url, server.userKey).responses.create({
      model: 'default',
      input: 'x',
    });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output_text).toBe('');
    expect(response).toMatchObject({
      rlm: { status: 'max_iterations', partialAnswer: 'still thinking' },
    });
  });

  it('fails with 503 naming the run’s error, or ends the stream with response.failed', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(() => providerDown())),
    });
    const openai = client(server.url, server.userKey);
    const refused = await openai.responses
      .create({ model: 'default', input: 'x' })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 503 });
    expect((refused as Error).message).toContain('model.overloaded: upstream overloaded');
    const stream = await openai.responses.create({ model: 'default', input: 'x', stream: true });
    const types: string[] = [];
    let failed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed') failed = event.response;
    }
    expect(types.at(-1)).toBe('response.failed');
    expect(types).not.toContain('response.output_text.delta');
    expect(failed?.status).toBe('failed');
    expect(failed?.error?.message).toContain('model.overloaded');
  });

  it('refuses input it cannot take, naming the field', async () => {
    await using server = await startTestServer({
      engine: scriptedEngine(() => scriptedModel(() => 'FINAL(1)')),
    });
    const post = (body: object) =>
      server.request('/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'default', ...body }),
      });
    const cases: [object, string][] = [
      [{ input: [{ type: 'function_call_output', call_id: 'c1', output: '3' }] }, 'input.0.type'],
      [{ input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input.0.content'],
      [{ input: [{ role: 'assistant', content: 'only me' }] }, 'input'],
      [{ input: 'x', background: true }, 'background'],
      [{ input: 'x', previous_response_id: 'resp_1' }, 'previous_response_id'],
      [
        { input: 'x', text: { format: { type: 'json_schema', name: 'bad name!' } } },
        'text.format.name',
      ],
    ];
    for (const [body, field] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await response.json()) as { error: { details: { issues: string[] } } };
      expect(error.error.details.issues[0]).toMatch(new RegExp(`^${field}: `));
    }
  });
});
