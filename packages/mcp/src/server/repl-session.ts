import {
  formatExecutionResult,
  type REPLResult,
  RlmError,
  totalUsage,
  truncateOutput,
  type UsageSummary,
} from '@rlm/protocol';
import { createSandbox, type Sandbox } from '@rlm/sandbox';
import type { SubCallEnd, SubCallFunctions } from './sub-calls.js';

/** Characters of a block's output returned by `repl_exec` (the executor's cap). @default 20_000 */
export const DEFAULT_REPL_OUTPUT_CHARS = 20_000;
/** Wall-clock limit of one `repl_exec` block, sub-calls included. @default 300_000 */
export const DEFAULT_REPL_BLOCK_TIMEOUT_MS = 300_000;

/** Sandbox settings of an MCP session. */
export interface ReplSessionOptions {
  subCalls: SubCallFunctions;
  /** @default DEFAULT_REPL_BLOCK_TIMEOUT_MS */
  blockTimeoutMs?: number;
  /** @default DEFAULT_REPL_OUTPUT_CHARS */
  maxOutputChars?: number;
  /** @default 'worker' */
  isolation?: 'worker' | 'inline';
  /** Sandbox memory cap; the sandbox's default when absent. */
  memoryBytes?: number;
  /**
   * Frees the sandbox after this long without a block, load or reset (its memory goes back to
   * the host; the next block starts a fresh one over the same context and says the variables
   * are gone). @default never
   */
  idleMs?: number | undefined;
  /** Told of each load, reset and block, in the order they run (the session's trajectory). */
  recorder?: ReplSessionRecorder | undefined;
}

/** What a session's record hears; called inside the session's queue, so in order. */
export interface ReplSessionRecorder {
  loaded(loaded: { text: string; files: readonly string[] }): void;
  reset(context: string): void;
  /** A block starts; the returned function gets its result (or what it threw). */
  block(block: {
    code: string;
    context: string;
  }): (result: REPLResult | { error: unknown }) => void;
}

/** What one `repl_exec` block gave. */
export interface BlockOutcome {
  /** Printed output and errors as the executor shows them to a model, cut at the cap. */
  output: string;
  truncated: boolean;
  /** The value of a `FINAL`/`FINAL_VAR` called in the block, else `null`. */
  finalAnswer: string | null;
  error: { name: string; message: string; code?: string | undefined } | null;
  /** Sub-calls this block made. */
  subCalls: number;
  /** Usage of this block's sub-calls. */
  usage: UsageSummary;
  /** Dollars of this block's sub-calls. */
  costUsd: number;
  /** Usage of the whole session so far (every block's sub-calls). */
  sessionUsage: UsageSummary;
  /**
   * Set when the REPL lost its variables since the last block the client saw: an earlier block
   * was cancelled while stuck inside a built-in call and its engine was replaced, or the sandbox
   * was freed after `idleMs` without use (`sandbox.reset`).
   */
  reset: { code: 'sandbox.reset'; message: string } | null;
}

/** What `after` adds to `before`, model by model (usage only grows within a session). */
function usageSince(before: UsageSummary, after: UsageSummary): UsageSummary {
  const models: UsageSummary['models'] = {};
  for (const [model, now] of Object.entries(after.models)) {
    const then = before.models[model];
    const delta = {
      calls: now.calls - (then?.calls ?? 0),
      inputTokens: now.inputTokens - (then?.inputTokens ?? 0),
      outputTokens: now.outputTokens - (then?.outputTokens ?? 0),
      cacheReadTokens: now.cacheReadTokens - (then?.cacheReadTokens ?? 0),
      cacheWriteTokens: now.cacheWriteTokens - (then?.cacheWriteTokens ?? 0),
      costUsd: Math.max(0, now.costUsd - (then?.costUsd ?? 0)),
    };
    if (delta.calls > 0) models[model] = delta;
  }
  return { models };
}

/**
 * The persistent sandbox of one MCP session: `context` as loaded, variables kept across blocks,
 * `llm_query` wired to the session's sub-call backend. Blocks run one at a time, in call order.
 * Created on first use; `reset()` and `load()` start a fresh one.
 */
export class ReplSession {
  readonly #options: ReplSessionOptions;
  #context = '';
  #sandbox: Promise<Sandbox> | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #lostState: BlockOutcome['reset'] = null;
  #idle: NodeJS.Timeout | undefined;
  #pending = 0;

  constructor(options: ReplSessionOptions) {
    this.#options = options;
  }

  /** The loaded context's text (empty before `context_load`). */
  get context(): string {
    return this.#context;
  }

  #open(): Promise<Sandbox> {
    if (this.#sandbox === null) {
      const { blockTimeoutMs = DEFAULT_REPL_BLOCK_TIMEOUT_MS, memoryBytes } = this.#options;
      this.#sandbox = createSandbox({
        context: this.#context,
        functions: this.#options.subCalls.functions,
        // The sandbox keeps its own generous cap; the tool result is cut at ours below.
        limits: { blockTimeoutMs, ...(memoryBytes === undefined ? {} : { memoryBytes }) },
        isolation: this.#options.isolation ?? 'worker',
      });
      // A failed start is not kept: the next call tries again.
      this.#sandbox.catch(() => {
        this.#sandbox = null;
      });
    }
    return this.#sandbox;
  }

  /** Whether a sandbox is alive now (it is freed when idle, and started again on use). */
  get sandboxOpen(): boolean {
    return this.#sandbox !== null;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    clearTimeout(this.#idle);
    this.#pending += 1;
    const next = this.#queue.then(work, work);
    this.#queue = next
      .catch(() => undefined)
      .finally(() => {
        this.#pending -= 1;
        if (this.#pending === 0) this.#armIdle();
      });
    return next;
  }

  #armIdle(): void {
    const { idleMs } = this.#options;
    if (idleMs === undefined || this.#closed || this.#sandbox === null) return;
    this.#idle = setTimeout(() => {
      if (this.#pending > 0 || this.#sandbox === null) return;
      void this.#serial(async () => {
        if (this.#sandbox === null) return;
        await this.#dropSandbox();
        this.#lostState = {
          code: 'sandbox.reset',
          message: `the REPL was freed after ${Math.round(idleMs / 1000)} s without a call: every variable from earlier blocks is gone (\`context\` is loaded again). Rebuild what you still need`,
        };
      });
    }, idleMs);
    this.#idle.unref();
  }

  async #dropSandbox(): Promise<void> {
    const current = this.#sandbox;
    this.#sandbox = null;
    if (current !== null) await (await current.catch(() => null))?.dispose();
  }

  /** Replaces the context: a fresh sandbox holds it (earlier variables are gone). */
  load(text: string, files: readonly string[] = []): Promise<void> {
    return this.#serial(async () => {
      this.#context = text;
      await this.#dropSandbox();
      this.#lostState = null;
      this.#options.recorder?.loaded({ text, files });
    });
  }

  /** A fresh sandbox over the same context. */
  reset(): Promise<void> {
    return this.#serial(async () => {
      await this.#dropSandbox();
      this.#lostState = null;
      this.#options.recorder?.reset(this.#context);
    });
  }

  /** Runs one block; `signal` stops it (spinning code too), and the session stays usable. */
  exec(
    code: string,
    { signal, onSubCall }: { signal?: AbortSignal; onSubCall?: (end: SubCallEnd) => void } = {},
  ): Promise<BlockOutcome> {
    return this.#serial(async () => {
      if (this.#closed) {
        throw new RlmError({
          code: 'sandbox.disposed',
          message: 'The MCP session is closed; its sandbox was freed.',
          details: {},
        });
      }
      signal?.throwIfAborted();
      const sandbox = await this.#open();
      const before = this.#options.subCalls.usage();
      let subCalls = 0;
      this.#options.subCalls.onEnd = (end) => {
        subCalls += 1;
        onSubCall?.(end);
      };
      const recorded = this.#options.recorder?.block({ code, context: this.#context });
      let result: REPLResult;
      try {
        result = await sandbox.execute(code, signal === undefined ? {} : { signal });
        recorded?.(result);
      } catch (error) {
        recorded?.({ error });
        throw error;
      } finally {
        this.#options.subCalls.onEnd = undefined;
      }
      // A sandbox that can no longer run code is replaced on the next block.
      if (sandbox.poisoned || sandbox.disposed) await this.#dropSandbox();
      return this.#outcome(result, { before, subCalls, aborted: signal?.aborted === true });
    });
  }

  #outcome(
    result: REPLResult,
    { before, subCalls, aborted }: { before: UsageSummary; subCalls: number; aborted: boolean },
  ): BlockOutcome {
    const reset = this.#lostState;
    this.#lostState = null;
    if (result.error?.code === 'sandbox.reset' && aborted) {
      // Nobody reads a cancelled call's answer: the next block says what was lost instead.
      this.#lostState = {
        code: 'sandbox.reset',
        message: `an earlier block was cancelled while it was stuck, and ${result.error.message}`,
      };
    }
    const note = reset === null ? '' : `[Note: ${reset.message}]\n`;
    const full = note + formatExecutionResult(result);
    const maxChars = this.#options.maxOutputChars ?? DEFAULT_REPL_OUTPUT_CHARS;
    const sessionUsage = this.#options.subCalls.usage();
    const usage = usageSince(before, sessionUsage);
    const { error } = result;
    return {
      output: truncateOutput(full, maxChars),
      truncated: full.length > maxChars,
      finalAnswer: result.finalAnswer,
      error:
        error === null
          ? null
          : {
              name: error.name,
              message: error.message,
              ...(error.code === undefined ? {} : { code: error.code }),
            },
      subCalls,
      usage,
      costUsd: totalUsage(usage).costUsd,
      sessionUsage,
      reset,
    };
  }

  /**
   * Frees the sandbox at once, stopping a block that is still running (a client that went away
   * must not keep spinning code alive until its timeout); later blocks fail. Idempotent.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idle);
    await this.#dropSandbox();
  }
}
