import { MAX_RUN_EVENT_CHARS, type RunEvent, runEventSchema } from '@rlm/protocol';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

describe('stored events', () => {
  it('are never larger than MAX_RUN_EVENT_CHARS, whatever the engine emits', {
    timeout: 60_000,
  }, async () => {
    // This engine emits raw events (the executor's own are capped already): a 5 MB response
    // becomes an iteration-end event of 5 MB.
    const huge = 'r'.repeat(5 * 2 ** 20);
    const engine = scriptedEngine(() => scriptedModel([huge, 'FINAL(done)']));
    await using server = await startTestServer({ engine });
    const created = await server.request('/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'q' }),
    });
    const { id } = (await created.json()) as { id: string };
    const deadline = Date.now() + 30_000;
    while (server.services.runs.isActive(id) || !(await server.request(`/v1/runs/${id}`)).ok) {
      if (Date.now() > deadline) throw new Error('the run did not end');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const stored: { event: RunEvent }[] = await server.services.store.runs.eventsAfter(id, 0);
    expect(stored.length).toBeGreaterThan(0);
    for (const { event } of stored) {
      expect(JSON.stringify(event).length).toBeLessThanOrEqual(MAX_RUN_EVENT_CHARS);
      runEventSchema.parse(event);
    }
    const cut = stored.find(({ event }) => event.type === 'iteration-end' && event.iteration === 0);
    expect(cut?.event).toMatchObject({ response: expect.stringMatching(/chars\.\.\.\]$/) });
  });
});
