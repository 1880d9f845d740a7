import { contextInfo } from '@rlm/executor';
import {
  capRunEvent,
  errorInfo,
  type JsonValue,
  type REPLResult,
  RUN_EVENT_VERSION,
  type RunEvent,
  type TrajectoryRecord,
  type UsageSummary,
} from '@rlm/protocol';
import { TrajectoryRecorder, type TrajectorySink } from '@rlm/trace';
import type { SubCallOutcome, SubCallRecorder } from './sub-calls.js';

/**
 * The `kind` in the header `config` of an MCP session's trajectory: `rlm trace` shows it like a
 * run, `rlm replay` refuses it (the blocks were written by the client's model, which no
 * recording can ask again).
 */
export const MCP_SESSION_TRAJECTORY_KIND = 'mcp-session';

/** Whether a trajectory records an MCP session (not a run), by its header. */
export function isMcpSessionTrajectory(records: readonly TrajectoryRecord[]): boolean {
  const header = records.find((record) => record.kind === 'header');
  return header?.kind === 'header' && header.config['kind'] === MCP_SESSION_TRAJECTORY_KIND;
}

/** The `query` of a session's `run-start`. */
const SESSION_QUERY = "MCP session: the client's model wrote the blocks (one turn per tool call)";

/** The `promptVersion` of a session's `run-start`: the client's model got no prompt of ours. */
const SESSION_PROMPT_VERSION = 'mcp-session';

/** What a session's trajectory is opened with. */
export interface SessionTrajectoryOptions {
  sessionId: string;
  /** Opens where the record goes; called with the first record, so an idle session leaves nothing. */
  openSink: () => TrajectorySink;
  /** The session's settings for the header (no secrets: ids and limits only). */
  config: Record<string, JsonValue>;
  /** @default Date.now */
  now?: () => number;
  /** Told of every event recorded (a server's metrics). */
  onEvent?: ((event: RunEvent) => void) | undefined;
}

/** One turn of the session: a tool call that touched the sandbox. */
interface OpenTurn {
  iteration: number;
  startedAt: number;
}

const PREVIEW_CHARS = 200;
const preview = (text: string) =>
  text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS)}…`;

/**
 * The record of one client-as-root MCP session, in the trajectory format of runs (through the
 * executor's `TrajectoryRecorder`, so secrets and long messages are handled as for runs). The
 * session is one run whose root model is the client's: each tool call that touched the sandbox
 * (`context_load`, `repl_exec`, `repl_reset`) is one turn, a `repl_exec` block is the turn's
 * block, its `llm_query` calls are sub-calls with their model exchanges. Opened on the first such
 * call (a session that only delegates `rlm_query` records nothing here); ended by `close`.
 */
export class SessionTrajectory implements SubCallRecorder {
  readonly sessionId: string;
  readonly #options: SessionTrajectoryOptions;
  #sink: TrajectorySink | undefined;
  #recorder: TrajectoryRecorder | undefined;
  readonly #now: () => number;
  #startedAt: number | undefined;
  #turns = 0;
  #calls = 0;
  #answer: string | null = null;
  #closed = false;

  constructor(options: SessionTrajectoryOptions) {
    this.sessionId = options.sessionId;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Where the record went, once it started. */
  get sink(): TrajectorySink | undefined {
    return this.#sink;
  }

  /** Whether anything was recorded yet. */
  get started(): boolean {
    return this.#startedAt !== undefined;
  }

  /** The number of turns recorded so far. */
  get turns(): number {
    return this.#turns;
  }

  #emit(body: Record<string, unknown>): void {
    const event = capRunEvent({
      v: RUN_EVENT_VERSION,
      runId: this.sessionId,
      parentRunId: null,
      rootRunId: this.sessionId,
      depth: 0,
      at: this.#now(),
      ...body,
    } as RunEvent);
    this.#recorder?.event(event);
    this.#options.onEvent?.(event);
  }

  /** Writes the header and `run-start` once; `client` names the client's model. */
  #open(client: string, context: string): void {
    if (this.#startedAt !== undefined || this.#closed) return;
    this.#startedAt = this.#now();
    this.#sink = this.#options.openSink();
    this.#recorder = new TrajectoryRecorder(this.#sink);
    this.#recorder.header({
      runId: this.sessionId,
      createdAt: this.#startedAt,
      config: { kind: MCP_SESSION_TRAJECTORY_KIND, ...this.#options.config, client },
    });
    this.#emit({
      type: 'run-start',
      // The client's question never reaches the server; say what the record is instead.
      query: SESSION_QUERY,
      model: client,
      context: [contextInfo(context)],
      // A session has no turn limit of its own.
      maxIterations: Number.MAX_SAFE_INTEGER,
      maxDepth: 0,
      promptVersion: SESSION_PROMPT_VERSION,
    });
  }

  #turn(client: string, context: string): OpenTurn | undefined {
    this.#open(client, context);
    if (this.#closed) return undefined;
    const turn = { iteration: this.#turns, startedAt: this.#now() };
    this.#turns += 1;
    this.#emit({ type: 'iteration-start', iteration: turn.iteration });
    return turn;
  }

  #endTurn(turn: OpenTurn, response: string, finalAnswer: string | null = null): void {
    this.#emit({
      type: 'iteration-end',
      iteration: turn.iteration,
      response,
      finalAnswer,
      durationMs: this.#now() - turn.startedAt,
    });
  }

  /** A `context_load`: its own turn, whose response names the context (size, files, hash). */
  contextLoaded(client: string, { text, files }: { text: string; files: readonly string[] }): void {
    const turn = this.#turn(client, text);
    if (turn === undefined) return;
    const info = contextInfo(text);
    const from = files.length === 0 ? '' : ` from ${files.length} file(s): ${files.join(', ')}`;
    this.#endTurn(turn, `context_load: ${info.totalLength} chars${from} (${info.hash})`);
  }

  /** A `repl_reset`: its own turn. */
  reset(client: string, context: string): void {
    const turn = this.#turn(client, context);
    if (turn !== undefined) this.#endTurn(turn, 'repl_reset: a fresh sandbox, context kept');
  }

  /** A `repl_exec` block starts: a turn with one block; call the result when it ends. */
  block(
    client: string,
    { code, context }: { code: string; context: string },
  ): (result: REPLResult | { error: unknown }) => void {
    const turn = this.#turn(client, context);
    if (turn === undefined) return () => undefined;
    this.#emit({ type: 'block-start', iteration: turn.iteration, index: 0, code });
    return (result) => {
      if (this.#closed) return;
      const ended: REPLResult =
        'stdout' in result
          ? result
          : {
              stdout: '',
              stderr: '',
              locals: {},
              llmCalls: [],
              executionTime: this.#now() - turn.startedAt,
              finalAnswer: null,
              error: { name: 'Error', ...errorInfo(result.error) },
              unawaitedCalls: {},
            };
      this.#emit({
        type: 'block-end',
        iteration: turn.iteration,
        index: 0,
        stdout: ended.stdout,
        stderr: ended.stderr,
        executionTime: ended.executionTime,
        finalAnswer: ended.finalAnswer,
        error: ended.error,
        unawaitedCalls: ended.unawaitedCalls,
      });
      if (ended.finalAnswer !== null) {
        this.#answer = ended.finalAnswer;
        this.#emit({ type: 'final-answer', answer: ended.finalAnswer, source: 'code' });
      }
      this.#endTurn(turn, `repl_exec:\n\`\`\`repl\n${code}\n\`\`\``, ended.finalAnswer);
    };
  }

  /** A sub-call of the running block: `subcall-*`, `model-call-*` and the model exchange. */
  start({ model, prompt }: { model: string; prompt: string }): (outcome: SubCallOutcome) => void {
    if (this.#startedAt === undefined || this.#closed) return () => undefined;
    this.#calls += 1;
    const callId = `${this.sessionId}:${this.#calls}`;
    const startedAt = this.#now();
    this.#emit({
      type: 'subcall-start',
      callId,
      kind: 'llm',
      model,
      promptPreview: preview(prompt),
    });
    this.#emit({
      type: 'model-call-start',
      callId,
      model,
      purpose: 'sub',
      messageCount: 1,
      promptChars: prompt.length,
    });
    return (outcome) => {
      if (this.#closed) return;
      const messages = [{ role: 'user' as const, content: prompt }];
      const durationMs = this.#now() - startedAt;
      if ('response' in outcome) {
        const { response } = outcome;
        this.#recorder?.exchange({
          runId: this.sessionId,
          callId,
          system: undefined,
          messages,
          response,
        });
        this.#emit({
          type: 'model-call-end',
          callId,
          model: response.model,
          ok: true,
          usage: response.usage,
          ...(response.costUsd === undefined ? {} : { costUsd: response.costUsd }),
          durationMs,
          stopReason: response.stopReason,
          ...(response.requestId === undefined ? {} : { requestId: response.requestId }),
          responseChars: response.text.length,
        });
        this.#emit({
          type: 'subcall-end',
          callId,
          kind: 'llm',
          ok: true,
          durationMs,
          responsePreview: preview(response.text),
        });
        return;
      }
      const error = errorInfo(outcome.error);
      this.#recorder?.exchange({
        runId: this.sessionId,
        callId,
        system: undefined,
        messages,
        response: null,
        error,
      });
      this.#emit({ type: 'model-call-end', callId, model, ok: false, durationMs, error });
      this.#emit({
        type: 'subcall-end',
        callId,
        kind: 'llm',
        ok: false,
        durationMs,
        responsePreview: preview(`Error: ${error.message}`),
        error,
      });
    };
  }

  /**
   * Ends the record (idempotent): `run-end` with the session's usage, `completed` when a block
   * gave a `FINAL` answer (the latest one), else `cancelled` (the client ended the session).
   */
  async close(usage: UsageSummary): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#startedAt !== undefined) {
      this.#emit({
        type: 'run-end',
        status: this.#answer === null ? 'cancelled' : 'completed',
        answer: this.#answer,
        partialAnswer: null,
        usage,
        iterations: this.#turns,
        durationMs: this.#now() - this.#startedAt,
      });
    }
    await this.#recorder?.close();
  }
}
