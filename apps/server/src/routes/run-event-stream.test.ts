import { getEventListeners } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunStore, Store } from '@rlm/memory';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { openServerStore } from '../open-server-store.js';
import { deferred, readSse, type SseMessage } from '../test-support/read-sse.js';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

const hanging = () => scriptedEngine(() => scriptedModel(['never'], { latencyMs: 60_000 }));

async function submit(server: TestServer): Promise<string> {
  const response = await server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'q', context: 'c' }),
  });
  return ((await response.json()) as { id: string }).id;
}

/** Listeners on the signal every event stream of the server watches for a shutdown. */
function shutdownListeners(server: TestServer): number {
  return getEventListeners(server.services.stopping, 'abort').length;
}

describe('run event streams and the shutdown signal', () => {
  it('hold one shutdown listener per open stream, drop it at the end, and warn about none', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      await using server = await startTestServer({ engine: hanging() });
      const runId = await submit(server);
      // More clients than Node's default listener limit (10) follow one run.
      const streams = Array.from({ length: 12 }, async () => {
        const messages: SseMessage[] = [];
        const started = deferred<void>();
        const reading = (async () => {
          for await (const message of readSse(await server.request(`/v1/runs/${runId}/events`))) {
            messages.push(message);
            if (message.event === 'model-call-start') started.resolve();
            if (message.event === 'end') break;
          }
        })();
        await started.promise;
        return { messages, reading };
      });
      const open = await Promise.all(streams);
      expect(shutdownListeners(server)).toBe(12);
      // Node reports a listener warning on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual(
        [],
      );
      const cancel = await server.request(`/v1/runs/${runId}/cancel`, { method: 'POST' });
      expect(cancel.status).toBe(202);
      await Promise.all(open.map((stream) => stream.reading));
      for (const stream of open) expect(stream.messages.at(-1)?.event).toBe('end');
      expect(shutdownListeners(server)).toBe(0);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('drops the shutdown listener of a stream that fails', async () => {
    const base = await openServerStore({ kind: 'memory' });
    const dataDir = await mkdtemp(join(tmpdir(), 'rlm-stream-failure-'));
    let failing = false;
    const runs = new Proxy(base.runs, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'eventsAfter') return value.bind(target);
        return async (...args: unknown[]) => {
          if (failing) throw new Error('the database went away');
          return value.apply(target, args);
        };
      },
    }) as RunStore;
    const store = new Proxy(base, {
      get: (target, property) =>
        property === 'runs' ? runs : Reflect.get(target, property, target),
    }) as Store;
    try {
      await using server = await startTestServer({
        engine: hanging(),
        persistent: { store, dataDir },
      });
      const runId = await submit(server);
      failing = true;
      const messages: SseMessage[] = [];
      for await (const message of readSse(await server.request(`/v1/runs/${runId}/events`))) {
        messages.push(message);
      }
      expect(messages.map((message) => message.event)).toEqual(['error']);
      expect(shutdownListeners(server)).toBe(0);
    } finally {
      await base.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
