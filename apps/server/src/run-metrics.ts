import type { RunEvent } from '@rlm/protocol';
import type { MetricsRegistry } from './metrics-registry.js';

/** The run-related series of `/metrics`, fed from run events as they are persisted. */
export interface RunMetrics {
  observeEvent(event: RunEvent): void;
  runFinished(status: string): void;
}

/**
 * Registers run metrics. `gauges` is read at scrape time (queued and running runs). Active
 * sandboxes are counted as RLM invocations that started and have not ended: each invocation, root
 * or child, owns exactly one sandbox.
 */
export function createRunMetrics(
  registry: MetricsRegistry,
  gauges: () => { queued: number; running: number },
): RunMetrics {
  const runs = registry.counter('rlm_runs_total', 'Runs that ended, by status.');
  const modelCalls = registry.counter(
    'rlm_model_calls_total',
    'Model calls, by model and outcome.',
  );
  const tokens = registry.counter('rlm_tokens_total', 'Tokens, by model and kind.');
  const cost = registry.counter('rlm_cost_usd_total', 'Model cost in US dollars, by model.');
  const cacheHits = registry.counter(
    'rlm_cache_hits_total',
    'Sub-calls answered from the sub-call cache (not in rlm_model_calls_total), by model.',
  );
  const cacheSaved = registry.counter(
    'rlm_cache_saved_cost_usd_total',
    'What the cached sub-calls cost when they were first made, in US dollars, by model.',
  );
  let sandboxes = 0;
  registry.gauge('rlm_runs', 'Runs queued or running now.', () => {
    const { queued, running } = gauges();
    return [
      { labels: { state: 'queued' }, value: queued },
      { labels: { state: 'running' }, value: running },
    ];
  });
  registry.gauge(
    'rlm_active_sandboxes',
    'REPL sandboxes alive (one per running invocation).',
    () => [{ labels: {}, value: sandboxes }],
  );
  return {
    observeEvent(event) {
      // A run that goes on after a restart opens a sandbox again.
      if (event.type === 'run-start' || event.type === 'run-resume') sandboxes += 1;
      if (event.type === 'run-end') sandboxes = Math.max(0, sandboxes - 1);
      if (event.type !== 'model-call-end') return;
      if (event.cache !== undefined) {
        cacheHits.inc({ model: event.model });
        cacheSaved.inc({ model: event.model }, event.cache.savedCostUsd);
        return;
      }
      modelCalls.inc({ model: event.model, ok: String(event.ok) });
      if (event.usage !== undefined) {
        tokens.inc({ model: event.model, kind: 'input' }, event.usage.inputTokens);
        tokens.inc({ model: event.model, kind: 'output' }, event.usage.outputTokens);
        tokens.inc({ model: event.model, kind: 'cache_read' }, event.usage.cacheReadTokens);
        tokens.inc({ model: event.model, kind: 'cache_write' }, event.usage.cacheWriteTokens);
      }
      if (event.costUsd !== undefined) cost.inc({ model: event.model }, event.costUsd);
    },
    runFinished(status) {
      runs.inc({ status });
    },
  };
}
