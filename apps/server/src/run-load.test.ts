import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scriptedModel } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { readSse } from './test-support/read-sse.js';
import { scriptedEngine } from './test-support/scripted-engine.js';
import { startTestServer, type TestServer } from './test-support/start-test-server.js';

const RUNS = 200;
const CONCURRENCY = 20;
const MODEL_LATENCY_MS = 50;

async function followRun(server: TestServer, runId: string) {
  const response = await server.request(`/v1/runs/${runId}/events`);
  const subscribedAt = Date.now();
  const seqs: number[] = [];
  const latenciesMs: number[] = [];
  const liveLatenciesMs: number[] = [];
  let status: string | undefined;
  for await (const message of readSse(response)) {
    if (message.event === 'end') break;
    const event = JSON.parse(message.data) as { at: number; type: string; status?: string };
    seqs.push(Number(message.id));
    latenciesMs.push(message.receivedAt - event.at);
    // Events emitted before the stream opened measure the backlog, not delivery: kept apart.
    if (event.at >= subscribedAt) liveLatenciesMs.push(message.receivedAt - event.at);
    if (event.type === 'run-end') status = event.status;
  }
  return { seqs, latenciesMs, liveLatenciesMs, status };
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

describe('run manager under load', () => {
  it(`completes ${RUNS} runs at concurrency ${CONCURRENCY} with no lost events`, {
    timeout: 120_000,
  }, async () => {
    const engine = scriptedEngine(() =>
      scriptedModel(['thinking', 'FINAL(done)'], { latencyMs: MODEL_LATENCY_MS }),
    );
    await using server = await startTestServer({
      engine,
      config: {
        logLevel: 'warn',
        limits: {
          globalConcurrency: CONCURRENCY,
          concurrentRunsPerKey: RUNS,
          queueSize: RUNS,
          requestsPerMinute: 100_000,
        },
      },
    });
    const started = performance.now();
    // Each client follows its run as soon as it is accepted, as a real client would.
    const outcomes = await Promise.all(
      Array.from({ length: RUNS }, async (_, index) => {
        const response = await server.request('/v1/runs', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: `question ${index}` }),
        });
        expect(response.status).toBe(202);
        const { id } = (await response.json()) as { id: string };
        return { id, ...(await followRun(server, id)) };
      }),
    );
    const runIds = outcomes.map((outcome) => outcome.id);
    const results = outcomes;
    const wallMs = performance.now() - started;
    for (const [index, result] of results.entries()) {
      expect(result.status).toBe('completed');
      expect(result.seqs).toEqual(result.seqs.map((_, position) => position + 1));
      const stored = await server.services.store.runs.eventsAfter(runIds[index] ?? '', 0);
      expect(result.seqs.length).toBe(stored.length);
    }
    const latencies = results.flatMap((result) => result.latenciesMs);
    const live = results.flatMap((result) => result.liveLatenciesMs);
    const report = {
      date: new Date().toISOString(),
      runs: RUNS,
      concurrency: CONCURRENCY,
      modelLatencyMs: MODEL_LATENCY_MS,
      events: latencies.length,
      wallMs: Math.round(wallMs),
      idealWallMs: (RUNS / CONCURRENCY) * 2 * MODEL_LATENCY_MS,
      eventLatencyMs: {
        live: { events: live.length, p50: percentile(live, 0.5), p99: percentile(live, 0.99) },
        includingBacklog: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
      },
    };
    await mkdir(join(import.meta.dirname, '..', 'test-artifacts'), { recursive: true });
    await writeFile(
      join(import.meta.dirname, '..', 'test-artifacts', 'load-test.json'),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    // Per run: run-start, 2 × (iteration-start, model-call-start, model-call-end, iteration-end),
    // final-answer, run-end.
    expect(latencies.length).toBe(RUNS * 11);
  });
});
