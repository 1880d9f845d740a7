import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import type { Store } from '@rlm/memory';
import type { Logger } from 'pino';
import { type AgentRegistry, createAgentRegistry } from './agent-registry.js';
import { type AgentTurns, createAgentTurns } from './agent-turns.js';
import type { ApiKeyStore } from './api-key-store.js';
import { agentLock } from './cluster/agent-lock.js';
import type { Cluster } from './cluster/open-cluster.js';
import { createPostgresContextStore } from './cluster/postgres-context-store.js';
import { createPostgresRateLimiter } from './cluster/postgres-rate-limiter.js';
import { createRunCoordinator } from './cluster/run-coordinator.js';
import { wakeStreams } from './cluster/wake-streams.js';
import { type ContextStore, createContextStore } from './context-store.js';
import { createEventHub, type EventHub } from './event-hub.js';
import type { ModelResolver } from './executor-engine.js';
import { createMcpSessions, type McpSessions } from './mcp-sessions.js';
import { createMetricsRegistry, type MetricsRegistry } from './metrics-registry.js';
import { ownProfile } from './own-profile.js';
import { createLocalRateLimiter, type RateLimiter } from './rate-limiter.js';
import { createRequestActivity, type RequestActivity } from './request-activity.js';
import type { RunEngine } from './run-engine.js';
import { createRunManager, type RunManager } from './run-manager.js';
import { createRunMetrics } from './run-metrics.js';
import { createRunViews, type RunViews } from './run-views.js';
import type { ServerConfig } from './server-config.js';

/** How long a shutdown waits, after the runs have stopped, for their responses to be written. */
const SHUTDOWN_DELIVERY_MS = 5_000;

/** What the composition root supplies; tests pass the same with fakes where the network would be. */
export interface ServerDeps {
  config: ServerConfig;
  /** `@rlm/memory` store: runs, events, trajectories, conversations, layers, working memory. */
  store: Store;
  keys: ApiKeyStore;
  engine: RunEngine;
  logger: Logger;
  /** Epoch-ms clock. @default Date.now */
  now?: () => number;
  /** Reported in `/openapi.json`. @default '0.0.0' */
  version?: string;
  /**
   * Throws when a model id cannot be served (no key for its provider, an unknown offline
   * policy): `/readyz` fails while the default profile's models cannot. @default accepts every id
   */
  checkModel?: (modelId: string) => void;
  /**
   * Turns a profile's model id into a client for model calls made outside runs: the `/mcp`
   * sessions' `llm_query` when the client offers no sampling (the default profile's
   * `subModel ?? model`). @default none: those calls fail with `mcp.no_sub_model`
   */
  resolveModel?: ModelResolver;
  /**
   * The shared Postgres of a set of replicas (`RLM_DATABASE_URL`): contexts, rate limits, the run
   * queue and leases, wake-ups and agent turn order then hold across replicas. Absent: one server.
   */
  cluster?: Cluster;
}

/** The long-lived parts of one server instance, shared by its routes. */
export interface ServerServices extends ServerDeps {
  runs: RunManager;
  hub: EventHub;
  metrics: MetricsRegistry;
  contexts: ContextStore;
  views: RunViews;
  agents: AgentRegistry;
  agentTurns: AgentTurns;
  /** Requests and streams in progress. */
  activity: RequestActivity;
  /** The open `/mcp` sessions, each with its own sandbox. */
  mcp: McpSessions;
  /** Aborted when a shutdown starts: event streams end with `event: shutdown`. */
  stopping: AbortSignal;
  /** Per-key request rate: in this process, or shared by the replicas. */
  keyRateLimiter: RateLimiter;
  /** Readiness checks for `/readyz`. */
  readiness(): Promise<Record<string, { ok: boolean; detail?: string }>>;
  /**
   * Stops accepting runs, tells event-stream clients to reconnect elsewhere (`event: shutdown`),
   * lets running ones finish within `graceMs`, waits for their responses (a chat completion that
   * finished within the grace is delivered), then releases resources.
   */
  shutdown(graceMs: number): Promise<void>;
}

/** Wires the run manager, event hub, metrics and context store around the injected deps. */
export function createServerServices(deps: ServerDeps): ServerServices {
  const { cluster, config } = deps;
  const hub = createEventHub();
  const metrics = createMetricsRegistry();
  const contexts =
    cluster === undefined
      ? createContextStore(join(config.dataDir, 'contexts'))
      : createPostgresContextStore(cluster.pool);
  const unlisten = cluster === undefined ? () => undefined : wakeStreams(cluster, hub);
  let runs: RunManager | undefined;
  const runMetrics = createRunMetrics(metrics, () => runs?.stats() ?? { queued: 0, running: 0 });
  runs = createRunManager({
    store: deps.store.runs,
    engine: deps.engine,
    contexts,
    hub,
    config: deps.config,
    metrics: runMetrics,
    logger: deps.logger,
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(cluster === undefined
      ? {}
      : {
          coordinator: createRunCoordinator(cluster, {
            store: deps.store.runs,
            limits: config.limits,
          }),
        }),
  });
  const manager = runs;
  let stopping = false;
  const stopSignal = new AbortController();
  // Every open event stream listens for the shutdown (and stops listening when it ends): more
  // than Node's default 10 is the normal load of a server, not a leak.
  setMaxListeners(0, stopSignal.signal);
  const activity = createRequestActivity();
  const agents = createAgentRegistry(deps.store.scratchpad);
  const mcp = createMcpSessions({
    config: deps.config,
    runs: manager,
    store: deps.store,
    hub,
    metrics: runMetrics,
    registry: metrics,
    ...(deps.resolveModel === undefined ? {} : { resolveModel: deps.resolveModel }),
  });
  return {
    ...deps,
    runs: manager,
    hub,
    metrics,
    contexts,
    activity,
    mcp,
    stopping: stopSignal.signal,
    views: createRunViews(deps.store.runs, {
      resumable: async (record) => (await manager.resumeRefusal(record)) === undefined,
    }),
    agents,
    keyRateLimiter:
      cluster === undefined
        ? createLocalRateLimiter({
            perMinute: config.limits.requestsPerMinute,
            ...(deps.now === undefined ? {} : { now: deps.now }),
          })
        : createPostgresRateLimiter(cluster.pool, {
            perMinute: config.limits.requestsPerMinute,
            namespace: 'key',
          }),
    agentTurns: createAgentTurns({
      store: deps.store,
      agents,
      ...(cluster === undefined ? {} : { exclusive: agentLock(cluster) }),
      runs: manager,
      contexts,
      config: deps.config,
    }),
    async readiness() {
      const store = await deps.store.runs
        .listRuns({ limit: 1 })
        .then(() => ({ ok: true }))
        .catch((error: unknown) => ({ ok: false, detail: String(error) }));
      return {
        store,
        defaultProfile: defaultProfileCheck(deps),
        accepting: stopping ? { ok: false, detail: 'shutting down' } : { ok: true },
      };
    },
    async shutdown(graceMs) {
      stopping = true;
      stopSignal.abort();
      // MCP calls are answered ("shutting down") while runs use their grace, not after it.
      await Promise.all([manager.shutdown(graceMs), mcp.closeAll(graceMs)]);
      // Responses of runs that ended within the grace are still being written: deliver them.
      await activity.idle(SHUTDOWN_DELIVERY_MS);
      unlisten();
      metrics.close();
    },
  };
}

/** Whether the default profile's models can be served now (a key is set, the policy exists). */
function defaultProfileCheck({ config, checkModel }: ServerDeps): { ok: boolean; detail?: string } {
  const profile = ownProfile(config, config.defaultProfile);
  if (profile === undefined) return { ok: false, detail: 'no default profile' };
  try {
    checkModel?.(profile.model);
    if (profile.subModel !== undefined) checkModel?.(profile.subModel);
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}
