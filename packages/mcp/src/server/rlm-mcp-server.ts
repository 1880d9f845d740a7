import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  errorKind,
  type JsonValue,
  type LanguageModel,
  parseSchema,
  type RLMChatCompletion,
  RlmError,
  type RunEvent,
  totalUsage,
} from '@rlm/protocol';
import type { z } from 'zod';
import { DEFAULT_CONTEXT_EXCLUDE, resolveAllowedFiles } from './allowed-roots.js';
import { toolError, toolSuccess } from './call-tool-result.js';
import { CONTEXT_PREVIEW_CHARS, DEFAULT_MAX_CONTEXT_BYTES, loadContext } from './load-context.js';
import { progressReporter, type ToolCallExtra } from './progress-reporter.js';
import { ReplSession } from './repl-session.js';
import type { RlmQueryRunner } from './rlm-query-runner.js';
import { RunRecords } from './run-records.js';
import { SessionRecord, type SessionTrajectoryTarget } from './session-record.js';
import { sessionRoots } from './session-roots.js';
import { type SubCallBudget, subCallFunctions } from './sub-calls.js';
import { RLM_TOOL_NAMES, type RlmToolName, TOOL_SCHEMAS, toolList } from './tool-list.js';

/** The MCP spec's JSON-RPC code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** Options of `createRlmMcpServer`. */
export interface RlmMcpServerOptions {
  /** Runs `rlm_query` (delegated runs); without it, `rlm_query` is not offered. */
  runQuery?: RlmQueryRunner | undefined;
  /** The model behind `llm_query` in the session's REPL when the client offers no sampling. */
  subModel?: LanguageModel | undefined;
  /**
   * Caps on the session's `llm_query` calls (sampled or through `subModel`): calls, tokens,
   * dollars. A call past one is refused with `executor.budget_exceeded`. @default no caps
   */
  subCallBudget?: SubCallBudget | undefined;
  /**
   * Where the session's own record goes (its `context_load`, `repl_exec`, `repl_reset` and their
   * sub-calls, as a trajectory): `{ dir }` writes `<dir>/<id>.jsonl` beside the runs, a function
   * gives any sink. Listed as the resource `rlm://sessions/{id}`. @default 'memory'
   */
  sessionTrajectory?: SessionTrajectoryTarget | undefined;
  /** Told of each event of the session's record as it is written (metrics, logs). */
  onSessionEvent?: ((event: RunEvent) => void) | undefined;
  /**
   * Where relative paths resolve when the client declares no roots; `null` for none (only
   * `roots` can then be read). @default process.cwd()
   */
  cwd?: string | null;
  /**
   * Read the client's MCP roots. Off for a remote server: the client's paths name its own
   * disk. @default true
   */
  clientRoots?: boolean;
  /** Directories always allowed besides the client's roots (`--root`). */
  roots?: readonly string[];
  /** The largest context one tool call loads, in bytes. @default DEFAULT_MAX_CONTEXT_BYTES */
  maxContextBytes?: number;
  /** Globs a directory or glob skips. @default DEFAULT_CONTEXT_EXCLUDE */
  exclude?: readonly string[];
  /** The session REPL's limits and isolation. */
  repl?: {
    blockTimeoutMs?: number;
    maxOutputChars?: number;
    memoryBytes?: number;
    isolation?: 'worker' | 'inline';
    /** Free the sandbox after this long unused (the next block says so). @default never */
    idleMs?: number;
  };
  /** Told when a tool call ends (a session table keeps its idle clock from there). */
  onActivity?: (() => void) | undefined;
  /** Reads a run's trajectory for `rlm://runs/{id}`; the completion's `trajectoryPath` by default. */
  readTrajectory?: (run: RLMChatCompletion) => Promise<string | undefined>;
  /**
   * The directory runs write their trajectories to (`<dir>/<runId>.jsonl`): `rlm://runs/{id}` then
   * also reads runs that earlier sessions made, by plain id. Only for a server with one user (a
   * local stdio server); a shared server would show one client's runs to another.
   * @default none: a session reads only its own runs
   */
  earlierRunsDir?: string | undefined;
}

/** One MCP session's server: connect it to a transport; `close()` frees the session's sandbox. */
export interface RlmMcpServer extends AsyncDisposable {
  readonly server: Server;
  /** The id of the session's trajectory: `rlm://sessions/{id}`, and its file `<id>.jsonl`. */
  readonly recordId: string;
  /** Settles once the session ended (the transport closed, or `close()`) and its sandbox is freed. */
  readonly closed: Promise<void>;
  /** Whether a tool call is running now. */
  readonly busy: boolean;
  /** Whether the session's sandbox is alive now (freed when idle, started again on use). */
  readonly sandboxOpen: boolean;
  close(): Promise<void>;
  /**
   * Ends the session for a server that is stopping: every tool call in flight is cancelled and
   * answered with a `server.unavailable` error result saying `reason`, waiting at most `graceMs`
   * for those answers to go out; then the session closes as `close()` does.
   */
  shutdown(reason: string, options?: { graceMs?: number }): Promise<void>;
}

/** How long `shutdown()` waits for the cancelled calls' answers. @default 5_000 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

function parseArguments<T extends z.ZodType>(name: RlmToolName, schema: T, value: unknown) {
  try {
    return parseSchema(schema, value ?? {}, { what: `${name} arguments` });
  } catch (error) {
    if (!RlmError.is(error, 'protocol.invalid_message')) throw error;
    throw new RlmError({
      code: 'mcp.invalid_arguments',
      message: `${name}: invalid arguments: ${error.details.issues.join('; ')}`,
      details: { tool: name, issues: error.details.issues },
    });
  }
}

function runSummary(run: RLMChatCompletion) {
  return {
    answer: run.answer,
    outcome: run.status,
    runId: run.runId,
    usage: run.usage,
    costUsd: totalUsage(run.usage).costUsd,
    refusedCalls: run.refusedCalls ?? 0,
    sandboxResets: run.sandboxResets ?? 0,
  };
}

/** A text block for a run whose REPL was reset (`sandbox.reset`), else nothing. */
function resetNote(resets: number): { type: 'text'; text: string }[] {
  if (resets === 0) return [];
  const times = resets === 1 ? 'once' : `${resets} times`;
  return [
    {
      type: 'text',
      text: `Note: this run's REPL was reset ${times} (sandbox.reset: a block ran past its limits in a call the sandbox could not interrupt); the variables defined before were lost and the model was told.`,
    },
  ];
}

/** A second text block for an answer reached while a budget refused sub-calls (else nothing). */
function refusedNote(refused: number): { type: 'text'; text: string }[] {
  if (refused === 0) return [];
  const calls = refused === 1 ? '1 sub-call' : `${refused} sub-calls`;
  return [
    {
      type: 'text',
      text: `Note: a budget refused ${calls} of this run (never sent), so the answer may rest on part of the work.`,
    },
  ];
}

/**
 * An MCP server for one session that serves a Recursive Language Model as tools: `rlm_query`
 * (a whole delegated run), and `context_load`, `repl_exec`, `repl_reset` over a persistent
 * sandbox where the client's own model writes the code and `llm_query` goes back to it through
 * sampling. Runs it made are listed as resources `rlm://runs/{id}` (their trajectories).
 *
 * @example
 * const { server } = createRlmMcpServer({ runQuery: rlmQueryRunner({ runner, settings: { model: 'anthropic/claude-sonnet-5-5' } }) });
 * await server.connect(new StdioServerTransport());
 */
export function createRlmMcpServer(options: RlmMcpServerOptions = {}): RlmMcpServer {
  const server = new Server(
    { name: 'rlm', version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Recursive Language Model tools: rlm_query answers over files too large for your context; ' +
        'context_load + repl_exec let you explore them yourself in a sandboxed JavaScript REPL.',
    },
  );
  const names = RLM_TOOL_NAMES.filter((name) => name !== 'rlm_query' || options.runQuery);
  const roots = sessionRoots(server, {
    cwd: options.cwd === undefined ? process.cwd() : options.cwd,
    extra: options.roots ?? [],
    clientRoots: options.clientRoots ?? true,
  });
  const record = new SessionRecord(options.sessionTrajectory ?? 'memory', {
    // Ids and limits only (JSON: absent options drop out); never a client object.
    config: JSON.parse(
      JSON.stringify({
        server: `@rlm/mcp ${version}`,
        subModel: options.subModel?.id ?? null,
        subCallBudget: options.subCallBudget ?? {},
        repl: options.repl ?? {},
      }),
    ) as Record<string, JsonValue>,
    onEvent: options.onSessionEvent,
  });
  const trajectory = record.trajectory;
  // The client's model is the session's root model; its name is known once it initialized.
  const client = () => `mcp-client/${server.getClientVersion()?.name ?? 'unknown'}`;
  const subCalls = subCallFunctions({
    server,
    model: options.subModel,
    budget: options.subCallBudget,
    recorder: trajectory,
  });
  const session = new ReplSession({
    subCalls,
    ...options.repl,
    recorder: {
      loaded: (loaded) => trajectory.contextLoaded(client(), loaded),
      reset: (context) => trajectory.reset(client(), context),
      block: (block) => trajectory.block(client(), block),
    },
  });
  const runs = new RunRecords(options.readTrajectory, options.earlierRunsDir);

  async function contextFrom(input: { paths?: string[] | undefined; text?: string | undefined }) {
    const files =
      input.paths === undefined || input.paths.length === 0
        ? []
        : await resolveAllowedFiles(input.paths, {
            roots: await roots(),
            exclude: options.exclude ?? DEFAULT_CONTEXT_EXCLUDE,
          });
    return loadContext(
      { text: input.text, files },
      { maxBytes: options.maxContextBytes ?? DEFAULT_MAX_CONTEXT_BYTES },
    );
  }

  const handlers: Record<
    RlmToolName,
    (args: unknown, extra: ToolCallExtra) => Promise<CallToolResult>
  > = {
    async rlm_query(args, extra) {
      const input = parseArguments('rlm_query', TOOL_SCHEMAS.rlm_query.input, args);
      const runQuery = options.runQuery as RlmQueryRunner;
      const loaded = await contextFrom({ paths: input.paths, text: input.context });
      const progress = progressReporter(extra);
      const run = await runQuery({
        query: input.query,
        context: loaded.text,
        model: input.model,
        escalate: input.escalate,
        escalateAfterErrors: input.escalateAfterErrors,
        maxDepth: input.maxDepth,
        maxIterations: input.maxIterations,
        maxCostUsd: input.maxCostUsd,
        maxTokens: input.maxTokens,
        mode: input.mode,
        drivers: input.drivers,
        repl: input.repl,
        outputSchema: input.outputSchema,
        signal: extra.signal,
        onEvent(event) {
          if (event.type === 'iteration-end') {
            progress(`depth ${event.depth}: iteration ${event.iteration + 1} done`);
          } else if (event.type === 'subcall-end') {
            progress(`depth ${event.depth}: ${event.kind}_query ${event.ok ? 'done' : 'failed'}`);
          }
        },
      });
      runs.add(run);
      const summary = runSummary(run);
      if (run.answer !== null) {
        const result = toolSuccess(run.answer, summary);
        return {
          ...result,
          content: [
            ...result.content,
            ...refusedNote(summary.refusedCalls),
            ...resetNote(summary.sandboxResets),
          ],
        };
      }
      const reason = run.error?.message ?? 'the model gave no FINAL answer';
      return {
        content: [
          {
            type: 'text',
            text: `The run ended without an answer (outcome: ${run.status}): ${reason}`,
          },
          ...resetNote(summary.sandboxResets),
        ],
        structuredContent: {
          ...summary,
          ...(run.error === null
            ? {}
            : { error: { ...run.error, kind: errorKind(run.error.code) } }),
        },
        isError: true,
      };
    },
    async context_load(args) {
      const input = parseArguments('context_load', TOOL_SCHEMAS.context_load.input, args);
      const loaded = await contextFrom(input);
      await session.load(loaded.text, loaded.files);
      const structured = {
        bytes: loaded.bytes,
        chars: loaded.text.length,
        lines: loaded.text === '' ? 0 : loaded.text.split('\n').length,
        files: loaded.files,
        skippedBinary: loaded.skippedBinary,
        preview: loaded.text.slice(0, CONTEXT_PREVIEW_CHARS),
      };
      const summary =
        `Loaded context: ${structured.chars} chars, ${structured.lines} lines` +
        (loaded.files.length > 0
          ? ` from ${loaded.files.length} file(s): ${loaded.files.slice(0, 20).join(', ')}`
          : '') +
        (loaded.files.length > 20 ? ', …' : '') +
        `.\nPreview:\n${structured.preview}${loaded.text.length > CONTEXT_PREVIEW_CHARS ? '…' : ''}`;
      return toolSuccess(summary, structured);
    },
    async repl_exec(args, extra) {
      const input = parseArguments('repl_exec', TOOL_SCHEMAS.repl_exec.input, args);
      const progress = progressReporter(extra);
      const outcome = await session.exec(input.code, {
        signal: extra.signal,
        onSubCall: (end) => progress(`sub-call via ${end.via} ${end.ok ? 'done' : 'failed'}`),
      });
      const text =
        outcome.finalAnswer === null ? outcome.output : `FINAL answer:\n${outcome.finalAnswer}`;
      return toolSuccess(text, { ...outcome });
    },
    async repl_reset(args) {
      parseArguments('repl_reset', TOOL_SCHEMAS.repl_reset.input, args);
      await session.reset();
      const kept =
        session.context === ''
          ? 'no context is loaded (context_load loads one).'
          : `\`context\` is still loaded (${session.context.length} chars).`;
      return toolSuccess(`The REPL was reset; ${kept}`, {
        reset: true,
        contextChars: session.context.length,
      });
    },
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList(names) }));
  const stopping = new AbortController();
  let stopReason = '';
  const inFlight = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name as RlmToolName;
    if (!names.includes(name)) {
      // The spec's answer to an unknown tool is a protocol error, not a tool's failure.
      throw new McpError(
        ErrorCode.InvalidParams,
        `There is no tool ${request.params.name}; the tools are ${names.join(', ')}.`,
        { tool: request.params.name },
      );
    }
    const shuttingDown = () =>
      toolError(
        new RlmError({
          code: 'server.unavailable',
          message: `The call was cancelled: ${stopReason}. Try again once the server is back.`,
          details: { reason: 'shutting down' },
        }),
      );
    if (stopping.signal.aborted) return shuttingDown();
    const signal = AbortSignal.any([extra.signal, stopping.signal]);
    const call = handlers[name](request.params.arguments, { ...extra, signal }).catch(toolError);
    inFlight.add(call);
    try {
      const result = await call;
      return stopping.signal.aborted ? shuttingDown() : result;
    } finally {
      inFlight.delete(call);
      options.onActivity?.();
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [...record.list(), ...runs.list()],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [runs.template(), SessionRecord.template()],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    try {
      return { contents: [await (SessionRecord.owns(uri) ? record.read(uri) : runs.read(uri))] };
    } catch (error) {
      if (!RlmError.is(error, 'server.not_found')) throw error;
      throw new McpError(RESOURCE_NOT_FOUND, error.message, { uri });
    }
  });

  let closing: Promise<void> | null = null;
  const close = () => {
    if (closing !== null) return closing;
    let done: () => void = () => undefined;
    // Set before anything runs: closing the transport calls `onclose`, which comes back here.
    closing = new Promise<void>((resolve) => {
      done = resolve;
    });
    void server
      .close()
      .catch(() => undefined)
      .then(() => session.close())
      .catch(() => undefined)
      .then(() => trajectory.close(subCalls.usage()))
      .catch(() => undefined)
      .then(done);
    return closing;
  };
  let ended: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    ended = resolve;
  });
  server.onclose = () => {
    void close().then(ended);
  };
  async function shutdown(
    reason: string,
    { graceMs = DEFAULT_SHUTDOWN_GRACE_MS }: { graceMs?: number } = {},
  ): Promise<void> {
    if (!stopping.signal.aborted) {
      stopReason = reason;
      stopping.abort(
        new RlmError({
          code: 'server.unavailable',
          message: reason,
          details: { reason: 'shutting down' },
        }),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...inFlight]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    // The SDK sends a handler's result a few ticks after it settles: let those answers go out.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await close().then(ended);
  }
  return {
    server,
    recordId: trajectory.sessionId,
    closed,
    get busy() {
      return inFlight.size > 0;
    },
    get sandboxOpen() {
      return session.sandboxOpen;
    },
    close: () => close().then(ended),
    shutdown,
    [Symbol.asyncDispose]: close,
  };
}
