import { createHttpSession, type HttpSession, type RlmQueryRequest } from '@rlm/mcp';
import type { Store } from '@rlm/memory';
import { type LanguageModel, type RLMChatCompletion, RlmError } from '@rlm/protocol';
import type { Principal } from './api-key-store.js';
import { effectiveBudget } from './effective-budget.js';
import type { EventHub } from './event-hub.js';
import type { ModelResolver } from './executor-engine.js';
import { ownProfile, profileNames } from './own-profile.js';
import type { RunManager } from './run-manager.js';
import type { RunMetrics } from './run-metrics.js';
import type { ServerConfig } from './server-config.js';

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
  owner: string;
  http: HttpSession;
  idle: NodeJS.Timeout | undefined;
}

/** The open MCP sessions of one server: each with its own sandbox, ended when idle. */
export interface McpSessions {
  /** Answers one `/mcp` request of `principal` (its session, or a new one on `initialize`). */
  handle(request: Request, principal: Principal): Promise<Response>;
  /** Ends every session (shutdown). */
  closeAll(): Promise<void>;
  /** Sessions open now. */
  size(): number;
}

function notFound(): Response {
  // The spec's answer to an unknown or ended session: the client starts a new one.
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
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
        },
        config.maxima,
      ),
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

/** Creates the session table behind `/mcp`. */
export function createMcpSessions(deps: McpSessionsDeps): McpSessions {
  const { config, store } = deps;
  const sessions = new Map<string, McpSession>();

  function touch(id: string, session: McpSession) {
    clearTimeout(session.idle);
    session.idle = setTimeout(() => void session.http.rlm.close(), config.mcp.idleTimeoutMs);
    session.idle.unref();
    sessions.set(id, session);
  }

  async function open(request: Request, principal: Principal): Promise<Response> {
    const owned = [...sessions.values()].filter((session) => session.owner === principal.keyId);
    if (owned.length >= config.mcp.sessionsPerKey) {
      throw new RlmError({
        code: 'server.rate_limited',
        message: `This key has ${owned.length} MCP sessions open, the most allowed; end one (DELETE /mcp) or wait for an idle one to expire.`,
        details: { retryAfterMs: 60_000, limit: 'concurrent_runs' },
      });
    }
    const { maxSubcalls, maxTokens, maxCostUsd } = config.maxima;
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
      readTrajectory: async (run) => (await store.runs.trajectoryJsonl(run.runId)) || undefined,
    });
    const response = await http.handleRequest(request);
    const id = http.sessionId;
    // Anything but a successful initialize leaves no session behind.
    if (id === undefined) {
      await http.rlm.close();
      return response;
    }
    touch(id, { owner: principal.keyId, http, idle: undefined });
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
      touch(id, session);
      return session.http.handleRequest(request);
    },
    async closeAll() {
      await Promise.all([...sessions.values()].map((session) => session.http.rlm.close()));
    },
    size: () => sessions.size,
  };
}
