import { outputFromJsonSchema } from '@rlm/executor';
import { createHttpSession, type HttpSession, type RlmQueryRequest } from '@rlm/mcp';
import type { Store } from '@rlm/memory';
import { type LanguageModel, type RLMChatCompletion, RlmError } from '@rlm/protocol';
import type { Principal } from './api-key-store.js';
import { callerEscalation } from './caller-escalation.js';
import { effectiveBudget } from './effective-budget.js';
import type { EventHub } from './event-hub.js';
import type { ModelResolver } from './executor-engine.js';
import type { MetricsRegistry } from './metrics-registry.js';
import { ownProfile, profileNames } from './own-profile.js';
import type { RunManager } from './run-manager.js';
import type { RunMetrics } from './run-metrics.js';
import type { ModelProfile, ServerConfig } from './server-config.js';

/** What the MCP sessions run on. */
export interface McpSessionsDeps {
  config: ServerConfig;
  runs: RunManager;
  store: Store;
  hub: EventHub;
  /** Counts the sessions' own model calls (tokens, cost) and sandboxes beside the runs'. */
  metrics?: RunMetrics;
  /** The clients behind the sessions' `llm_query` without sampling; none: `mcp.no_sub_model`. */
  resolveModel?: ModelResolver;
  /** Where the sessions' gauges go (`rlm_mcp_sessions`, the caps); none: not shown. */
  registry?: MetricsRegistry;
  /** @default Date.now */
  now?: () => number;
}

/**
 * The model behind `llm_query` in a session whose client offers no sampling: the default
 * profile's `subModel ?? model`, with the profile's settings as its runs get them. Resolved on
 * its first call, so a provider without a key fails that call, not the session.
 */
function sessionSubModel({ config, resolveModel }: McpSessionsDeps): LanguageModel | undefined {
  const profile = ownProfile(config, config.defaultProfile);
  if (profile === undefined || resolveModel === undefined) return undefined;
  const id = profile.subModel ?? profile.model;
  const { thinkingBudget, effort } = profile;
  let client: LanguageModel | undefined;
  const resolved = () => {
    client ??= resolveModel(id, {
      ...(id.startsWith('anthropic/') && thinkingBudget !== undefined
        ? { thinking: { type: 'enabled', budgetTokens: thinkingBudget } }
        : {}),
      ...(id.startsWith('anthropic/') && effort !== undefined ? { effort } : {}),
      repl: profile.repl,
    });
    return client;
  };
  return { id, complete: (request) => resolved().complete(request) };
}

/** How long event forwarding waits for a change before it looks again. */
const EVENT_POLL_MS = 5_000;

/**
 * Hands a run's stored events to `onEvent` as they are written (the run itself goes through the
 * queue, possibly on another replica), until `until` aborts; then the rest, once.
 */
async function forwardEvents(
  { store, hub }: McpSessionsDeps,
  {
    runId,
    onEvent,
    until,
  }: { runId: string; onEvent: RlmQueryRequest['onEvent']; until: AbortSignal },
): Promise<void> {
  let seq = 0;
  const drain = async () => {
    for (const stored of await store.runs.eventsAfter(runId, seq)) {
      seq = stored.seq;
      onEvent(stored.event);
    }
  };
  while (!until.aborted) {
    const version = hub.version(runId);
    await drain();
    await hub.waitForChange(runId, version, { timeoutMs: EVENT_POLL_MS, signal: until });
  }
  // The run has ended: what it wrote last goes out before its result.
  await drain();
}

interface McpSession {
  id: string;
  owner: string;
  http: HttpSession;
  /** When the session last had a request or finished a call (ms since the epoch). */
  lastSeen: number;
  idle: NodeJS.Timeout | undefined;
}

/** The open MCP sessions of one server: each with its own sandbox, ended when idle. */
export interface McpSessions {
  /** Answers one `/mcp` request of `principal` (its session, or a new one on `initialize`). */
  handle(request: Request, principal: Principal): Promise<Response>;
  /**
   * Ends every session (shutdown): calls in flight are cancelled and answered with an error
   * saying the server is shutting down, within `graceMs`.
   */
  closeAll(graceMs?: number): Promise<void>;
  /** Sessions open now. */
  size(): number;
  /**
   * Fails the request a session sent with `requestId` (a sampled `llm_query`) with `message`:
   * its answer came too large to read. Nothing for an unknown session or another key's.
   */
  failRequest(
    request: Request,
    principal: Principal,
    failure: { requestId: string | number; message: string },
  ): void;
}

function notFound(): Response {
  // The spec's answer to an unknown or ended session: the client starts a new one.
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}

/**
 * On the server a profile fixes a run's mode, drivers and REPL: a client that asks for another
 * is told which profile to pick, never silently given the profile's.
 * @throws RlmError `config.invalid` naming the field and the profile's value
 */
function refuseProfileOverrides(
  request: RlmQueryRequest,
  profileName: string,
  profile: ModelProfile,
): void {
  const issues: string[] = [];
  if (request.mode !== undefined && request.mode !== profile.mode) {
    issues.push(`mode: the profile "${profileName}" runs in ${profile.mode} mode`);
  }
  if (request.repl !== undefined && request.repl !== profile.repl) {
    issues.push(`repl: the profile "${profileName}" runs a ${profile.repl} REPL`);
  }
  if (
    request.drivers !== undefined &&
    JSON.stringify([...request.drivers]) !== JSON.stringify(profile.drivers)
  ) {
    issues.push(
      `drivers: the profile "${profileName}" has ${profile.drivers.join(', ') || 'no drivers'}`,
    );
  }
  if (issues.length === 0) return;
  throw new RlmError({
    code: 'config.invalid',
    message: `Invalid rlm_query arguments: ${issues.join('; ')}; choose a profile (model) configured that way, or leave the field out.`,
    details: { source: 'rlm_query arguments', issues },
  });
}

/** Runs a delegated `rlm_query` as a server run of the key that opened the session. */
function serverRunner(deps: McpSessionsDeps, principal: Principal) {
  const { config, runs } = deps;
  return async (request: RlmQueryRequest): Promise<RLMChatCompletion> => {
    const profileName = request.model ?? config.defaultProfile;
    const profile = ownProfile(config, profileName);
    if (profile === undefined) {
      throw new RlmError({
        code: 'server.not_found',
        message: `rlm_query: the model "${profileName}" is not a configured profile; configured: ${profileNames(config)}`,
        details: { resource: 'model', id: profileName },
      });
    }
    refuseProfileOverrides(request, profileName, profile);
    const escalation = callerEscalation(config, request);
    // A schema that cannot be checked is the caller's error, said before the run is queued.
    if (request.outputSchema !== undefined) {
      outputFromJsonSchema(request.outputSchema, { source: 'rlm_query outputSchema' });
    }
    const started = Date.now();
    const { record, done } = await runs.submit({
      principal,
      kind: 'run',
      query: request.query,
      inlineContext: request.context,
      profileName,
      budget: effectiveBudget(
        profile,
        {
          ...(request.maxDepth === undefined ? {} : { maxDepth: request.maxDepth }),
          ...(request.maxIterations === undefined ? {} : { maxIterations: request.maxIterations }),
          ...(request.maxCostUsd === undefined ? {} : { maxCostUsd: request.maxCostUsd }),
          ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
        },
        config.maxima,
      ),
      ...(request.outputSchema === undefined ? {} : { outputSchema: request.outputSchema }),
      ...escalation,
    });
    const cancel = () => void runs.cancel(record.id);
    request.signal.addEventListener('abort', cancel, { once: true });
    const ended = new AbortController();
    const forwarding = forwardEvents(deps, {
      runId: record.id,
      onEvent: request.onEvent,
      until: ended.signal,
    }).catch(() => undefined);
    try {
      const outcome = await done;
      return {
        runId: record.id,
        rootRunId: record.id,
        parentRunId: null,
        depth: 0,
        model: profile.model,
        query: request.query,
        answer: outcome.answer,
        status: outcome.status,
        partialAnswer: outcome.partialAnswer,
        usage: outcome.usage,
        iterations: outcome.iterations,
        executionTime: outcome.durationMs || Date.now() - started,
        trajectoryPath: null,
        error: outcome.error,
      };
    } finally {
      ended.abort();
      await forwarding;
      request.signal.removeEventListener('abort', cancel);
    }
  };
}

/** How long `closeAll()` waits for the answers of cancelled calls by default. */
const CLOSE_GRACE_MS = 5_000;

/** Registers the `/mcp` series of `/metrics`: sessions, live sandboxes, and the caps. */
function registerMcpMetrics(
  registry: MetricsRegistry,
  { config, sessions }: { config: ServerConfig; sessions: Map<string, McpSession> },
): void {
  const { mcp } = config;
  registry.gauge(
    'rlm_mcp_sessions',
    'MCP sessions open now, and those with a live sandbox.',
    () => [
      { labels: { state: 'open' }, value: sessions.size },
      {
        labels: { state: 'sandbox' },
        value: [...sessions.values()].filter((session) => session.http.rlm.sandboxOpen).length,
      },
    ],
  );
  registry.gauge('rlm_mcp_sessions_limit', 'The caps on open MCP sessions.', () => [
    { labels: { scope: 'server' }, value: mcp.maxSessions },
    { labels: { scope: 'key' }, value: mcp.sessionsPerKey },
  ]);
  registry.gauge(
    'rlm_mcp_session_memory_limit_bytes',
    "The memory cap of one MCP session's sandbox.",
    () => [{ labels: {}, value: mcp.sessionMemoryBytes }],
  );
}

/**
 * A session that may be ended for a new one: no call running, no request for `reclaimAfterMs`;
 * the one quiet longest first. `undefined` when none is.
 */
function reclaimable(
  candidates: readonly McpSession[],
  { now, reclaimAfterMs }: { now: number; reclaimAfterMs: number },
): McpSession | undefined {
  return candidates
    .filter((session) => !session.http.rlm.busy && now - session.lastSeen >= reclaimAfterMs)
    .sort((a, b) => a.lastSeen - b.lastSeen)[0];
}

/**
 * How long until one of `candidates` can be reclaimed: the quiet one soonest; with every one
 * running a call, `reclaimAfterMs` (the earliest it could be, were its call to end now).
 */
function retryAfterMs(
  candidates: readonly McpSession[],
  { now, reclaimAfterMs }: { now: number; reclaimAfterMs: number },
): number {
  const quiet = candidates.filter((session) => !session.http.rlm.busy);
  const soonest =
    quiet.length === 0
      ? reclaimAfterMs
      : Math.min(...quiet.map((session) => session.lastSeen + reclaimAfterMs - now));
  return Math.max(1_000, Math.ceil(soonest / 1_000) * 1_000);
}

/** Creates the session table behind `/mcp`. */
export function createMcpSessions(deps: McpSessionsDeps): McpSessions {
  const { config, store } = deps;
  const now = deps.now ?? Date.now;
  const sessions = new Map<string, McpSession>();
  if (deps.registry !== undefined) registerMcpMetrics(deps.registry, { config, sessions });

  function armIdle(session: McpSession) {
    clearTimeout(session.idle);
    const wait = Math.max(0, session.lastSeen + config.mcp.idleTimeoutMs - now());
    session.idle = setTimeout(() => {
      // A call may run longer than the idle timeout: the session is idle once it ends.
      if (session.http.rlm.busy) {
        session.lastSeen = now();
        armIdle(session);
        return;
      }
      void session.http.rlm.close();
    }, wait);
    session.idle.unref();
  }

  function touch(session: McpSession) {
    session.lastSeen = now();
    armIdle(session);
  }

  /** Makes room for one more session of `owner`, reclaiming a quiet one, or refuses (429). */
  async function makeRoom(owner: string): Promise<void> {
    const { sessionsPerKey, maxSessions, reclaimAfterMs } = config.mcp;
    const clock = { now: now(), reclaimAfterMs };
    const all = [...sessions.values()];
    const owned = all.filter((session) => session.owner === owner);
    const [scope, candidates, cap] =
      owned.length >= sessionsPerKey
        ? (['This key', owned, sessionsPerKey] as const)
        : all.length >= maxSessions
          ? (['The server', all, maxSessions] as const)
          : [undefined, [], 0];
    if (scope === undefined) return;
    const victim = reclaimable(candidates, clock);
    if (victim !== undefined) {
      sessions.delete(victim.id);
      await victim.http.rlm.close();
      return;
    }
    const wait = retryAfterMs(candidates, clock);
    throw new RlmError({
      code: 'server.rate_limited',
      message: `${scope} has ${candidates.length} MCP sessions open, the most allowed (${cap}), and none has been quiet for ${reclaimAfterMs / 1000} s; end one (DELETE /mcp) or retry in ${wait / 1000} s, when the quietest one may be ended for yours.`,
      details: { retryAfterMs: wait, limit: 'concurrent_runs' },
    });
  }

  async function open(request: Request, principal: Principal): Promise<Response> {
    await makeRoom(principal.keyId);
    const { maxSubcalls, maxTokens, maxCostUsd } = config.maxima;
    let session: McpSession | undefined;
    const http = await createHttpSession({
      runQuery: serverRunner(deps, principal),
      subModel: sessionSubModel(deps),
      // A session's sub-calls get what one run may spend at most.
      subCallBudget: { maxSubcalls, maxTokens, maxCostUsd },
      ...(deps.metrics === undefined ? {} : { onSessionEvent: deps.metrics.observeEvent }),
      cwd: null,
      clientRoots: false,
      roots: config.mcp.roots,
      maxContextBytes: config.limits.contextBytes,
      // `/mcp` reads bodies within this limit itself and hands them on: one limit, ours.
      maxRequestBodySize: config.limits.contextBytes,
      repl: { memoryBytes: config.mcp.sessionMemoryBytes, idleMs: config.mcp.sandboxIdleMs },
      onActivity: () => {
        if (session !== undefined) touch(session);
      },
      readTrajectory: async (run) => (await store.runs.trajectoryJsonl(run.runId)) || undefined,
    });
    const response = await http.handleRequest(request);
    const id = http.sessionId;
    // Anything but a successful initialize leaves no session behind.
    if (id === undefined) {
      await http.rlm.close();
      return response;
    }
    session = { id, owner: principal.keyId, http, lastSeen: now(), idle: undefined };
    sessions.set(id, session);
    touch(session);
    void http.rlm.closed.then(() => {
      clearTimeout(sessions.get(id)?.idle);
      sessions.delete(id);
    });
    return response;
  }

  return {
    async handle(request, principal) {
      const id = request.headers.get('mcp-session-id');
      if (id === null) return open(request, principal);
      const session = sessions.get(id);
      // Another key's session is as unknown as an ended one: its id is no capability.
      if (session === undefined || session.owner !== principal.keyId) return notFound();
      touch(session);
      return session.http.handleRequest(request);
    },
    async closeAll(graceMs = CLOSE_GRACE_MS) {
      await Promise.all(
        [...sessions.values()].map((session) =>
          session.http.rlm.shutdown('the server is shutting down', { graceMs }),
        ),
      );
    },
    size: () => sessions.size,
    failRequest(request, principal, { requestId, message }) {
      const session = sessions.get(request.headers.get('mcp-session-id') ?? '');
      if (session === undefined || session.owner !== principal.keyId) return;
      session.http.failRequest(requestId, message);
    },
  };
}
