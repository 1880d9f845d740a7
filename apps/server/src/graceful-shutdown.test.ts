import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from './test-support/read-sse.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

describe('graceful shutdown', () => {
  it('delivers a chat completion that finishes within the grace and tells SSE clients to reconnect', {
    timeout: 30_000,
  }, async () => {
    const slow = scriptedModel(() => 'FINAL(Paris)', { latencyMs: 400 });
    const hanging = scriptedModel(() => 'still thinking', { latencyMs: 60_000 });
    await using server = await startTestServer({
      engine: scriptedEngine((input) => (input.query === 'hang' ? hanging : slow)),
      config: { shutdownGraceMs: 2_000 },
    });
    const run = (await (
      await server.request('/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'hang', context: 'c' }),
      })
    ).json()) as { id: string };
    const events = await server.request(`/v1/runs/${run.id}/events`);
    const messages: SseMessage[] = [];
    const reading = (async () => {
      for await (const message of readSse(events)) messages.push(message);
    })();
    const chat = server.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'default',
        messages: [{ role: 'user', content: 'Capital of France?' }],
      }),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = server.services.shutdown(2_000);
    const refused = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'late', context: 'c' }),
    });
    expect(refused.status).toBe(503);
    const answered = await chat;
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({ choices: [{ message: { content: 'Paris' } }] });
    await reading;
    const last = messages.at(-1);
    expect(last?.event).toBe('shutdown');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({
      message: expect.stringContaining('Last-Event-ID'),
      lastEventId: Number(messages.filter((message) => message.id !== undefined).at(-1)?.id ?? 0),
    });
    await stopped;
  });
});
