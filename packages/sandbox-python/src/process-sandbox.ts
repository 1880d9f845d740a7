import type { ExecuteOptions, JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { RlmError } from '@rlm/protocol';
import type { ContextScanner } from '@rlm/sandbox/context-ops';
import { assembleResult } from './block-result.js';
import type {
  BootConfig,
  FromSupervisor,
  InterpreterRequest,
  PayloadInit,
  RawBlockResult,
} from './child/child-messages.js';
import { pythonContextScanner } from './context-ops/python-context-scanner.js';
import { rawBlockResultSchema } from './host/child-replies.js';
import { interpreterPool } from './host/interpreter-pool.js';
import type { InterpreterProcess } from './host/interpreter-process.js';
import { HostCallRouter } from './host-calls.js';
import { assertSettable } from './python-names.js';
import type { PythonSandbox } from './python-sandbox.js';
import type { HostFunction, ResolvedPythonLimits } from './sandbox-options.js';
import { SerialQueue } from './serial-queue.js';

/** Extra time past a block's own limits before the host gives up on an unresponsive process. */
const WATCHDOG_GRACE_MS = 10_000;
const PAYLOAD_NAME = /^(context|history)(_\d+)?$/;
const encoder = new TextEncoder();

/** What a sandbox is built from (validated options with defaults applied). */
export interface SandboxSetup {
  functions: Record<string, HostFunction>;
  helperNames: readonly string[];
  contexts: JsonValue[];
  meta: Record<string, JsonValue>;
  limits: ResolvedPythonLimits;
  signal: AbortSignal | undefined;
}

interface Pending {
  request: InterpreterRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * A Python sandbox: the host side of one interpreter process taken from the pool. Requests are
 * serialised; host calls the interpreter makes are routed to the caller's functions (or the
 * context scanner). If the interpreter is lost during a block (it would not stop after a limit,
 * or failed), the block reports it and a fresh interpreter from the pool takes over, with the
 * payloads and host-set variables put back.
 */
export class ProcessSandbox implements PythonSandbox {
  readonly isolation = 'process' as const;
  readonly #setup: SandboxSetup;
  readonly #queue = new SerialQueue();
  readonly #pending = new Map<number, Pending>();
  readonly #router: HostCallRouter;
  readonly #scanner: ContextScanner | undefined;
  readonly #lifetime = new AbortController();
  /** Variables the host set (payloads first): put back when the interpreter is replaced. */
  readonly #hostVariables = new Map<string, JsonValue>();
  /** Interpreters this sandbox killed on purpose: their exit is expected, not a failure. */
  readonly #retired = new WeakSet<InterpreterProcess>();
  #interpreter: InterpreterProcess | undefined;
  #boot: { resolve: () => void; reject: (error: Error) => void } | undefined;
  /** Set while a lost interpreter is being replaced. */
  #replacement: Promise<void> | undefined;
  #nextId = 1;
  #poisonReason: string | undefined;
  #disposed = false;
  #resets = 0;
  #unbind: () => void = () => {};

  private constructor(setup: SandboxSetup) {
    this.#setup = setup;
    this.#scanner =
      setup.helperNames.length === 0
        ? undefined
        : pythonContextScanner({
            timeoutMs: setup.limits.scanTimeoutMs,
            maxChars: setup.limits.maxOutputChars,
          });
    this.#router = new HostCallRouter({
      functions: setup.functions,
      scanner: this.#scanner,
      helperNames: setup.helperNames,
    });
    setup.contexts.forEach((payload, index) => {
      this.#hostVariables.set(`context_${index}`, payload);
      this.#scanner?.setPayload(`context_${index}`, payload);
    });
    this.#hostVariables.set('__rlm', setup.meta);
  }

  static async create(setup: SandboxSetup): Promise<ProcessSandbox> {
    const sandbox = new ProcessSandbox(setup);
    try {
      await sandbox.#start();
    } catch (error) {
      await sandbox.dispose();
      throw RlmError.is(error) ? error : poisonedError(describe(error));
    }
    const { signal } = setup;
    if (signal !== undefined) {
      const onAbort = (): void => void sandbox.dispose();
      signal.addEventListener('abort', onAbort, { once: true });
      sandbox.#unbind = () => signal.removeEventListener('abort', onAbort);
    }
    return sandbox;
  }

  get poisoned(): boolean {
    return this.#poisonReason !== undefined;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  get resets(): number {
    return this.#resets;
  }

  /** Takes an interpreter from the pool, boots it with this sandbox's config and host variables. */
  async #start(): Promise<void> {
    const memoryBytes = this.#setup.limits.memoryBytes;
    const interpreter = interpreterPool.take(memoryBytes);
    this.#interpreter = interpreter;
    interpreter.attach(
      (message) => this.#onMessage(interpreter, message),
      (reason) => this.#onExit(interpreter, reason),
    );
    try {
      await interpreter.loaded;
      await new Promise<void>((resolve, reject) => {
        this.#boot = { resolve, reject };
        interpreter.send({ type: 'boot', config: this.#bootConfig() });
      });
    } finally {
      // Whatever happened, the next sandbox should find a spare; started once this creation has
      // returned, so forking it (tens of ms on a busy machine) does not delay this one.
      setImmediate(() => interpreterPool.refill(memoryBytes));
    }
    for (const [name, value] of this.#hostVariables) {
      if (name === '__rlm' || PAYLOAD_NAME.test(name)) continue;
      await this.#request({ type: 'setVariable', name, json: JSON.stringify(value) });
    }
  }

  #bootConfig(): BootConfig {
    const { limits } = this.#setup;
    const payloads = [...this.#hostVariables]
      .filter(([name]) => PAYLOAD_NAME.test(name))
      .map(([name, value]) =>
        typeof value === 'string'
          ? textPayload(name, value)
          : { name, kind: 'json' as const, bytes: encoder.encode(JSON.stringify(value)) },
      );
    return {
      payloads,
      functions: Object.keys(this.#setup.functions),
      helpers: [...this.#setup.helperNames],
      meta: this.#hostVariables.get('__rlm') ?? {},
      cpuSliceMs: limits.cpuSliceMs,
      blockTimeoutMs: limits.blockTimeoutMs,
      maxOutputChars: limits.maxOutputChars,
      maxAnswerChars: limits.maxAnswerChars,
    };
  }

  #onMessage(interpreter: InterpreterProcess, message: FromSupervisor): void {
    // After dispose nothing the process still sends may reach a host function.
    if (interpreter !== this.#interpreter || this.#disposed) return;
    switch (message.type) {
      case 'ready':
        this.#boot?.resolve();
        return;
      case 'failed':
        this.#boot?.reject(poisonedError(`the interpreter failed to start: ${message.message}`));
        return;
      case 'reply': {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.ok) pending?.resolve(message.value);
        // The scaffold itself failed during a block: treat the interpreter as lost.
        else if (pending?.request.type === 'execute')
          pending.resolve(lostResult('fatal', message.message));
        else pending?.reject(new Error(message.message));
        return;
      }
      case 'hostCall':
        void this.#router.run(message.callId, message.request).then((reply) => {
          if (interpreter === this.#interpreter) {
            interpreter.send({ type: 'hostReply', callId: message.callId, reply });
          }
        });
        return;
      case 'hostCancel':
        this.#router.cancel(message.callId);
        return;
      case 'loaded':
        return;
    }
  }

  /** The process is gone: a running block reports it lost (and is replaced); anything else fails. */
  #onExit(interpreter: InterpreterProcess, reason: string): void {
    if (interpreter !== this.#interpreter || this.#retired.has(interpreter)) return;
    this.#boot?.reject(poisonedError(reason));
    const pending = [...this.#pending.entries()];
    this.#pending.clear();
    if (this.#disposed) {
      for (const [, entry] of pending) entry.reject(disposedError());
      return;
    }
    const inBlock = pending.some(([, entry]) => entry.request.type === 'execute');
    if (!inBlock) this.#poisonReason ??= reason;
    for (const [, entry] of pending) {
      if (entry.request.type === 'execute') entry.resolve(lostResult('fatal', reason));
      else entry.reject(poisonedError(reason));
    }
  }

  #request(request: InterpreterRequest, signal?: AbortSignal): Promise<unknown> {
    const interpreter = this.#interpreter;
    if (this.#poisonReason !== undefined) return Promise.reject(poisonedError(this.#poisonReason));
    if (interpreter === undefined) return Promise.reject(poisonedError('no interpreter'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const { limits } = this.#setup;
      const onAbort = (): void => interpreter.send({ type: 'abort', id });
      // The process stopped answering even its supervisor's limits: give it up. A block reports
      // the interpreter lost (it is replaced); anything else leaves the sandbox poisoned.
      const watchdog = setTimeout(
        () => {
          this.#pending.delete(id);
          settle();
          this.#retire(interpreter);
          const reason = 'the interpreter process stopped responding';
          if (request.type === 'execute') {
            resolve(lostResult('unresponsive', reason));
          } else {
            this.#poisonReason ??= reason;
            reject(poisonedError(reason));
          }
        },
        limits.blockTimeoutMs + limits.cpuSliceMs + WATCHDOG_GRACE_MS,
      );
      const settle = (): void => {
        clearTimeout(watchdog);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#pending.set(id, {
        request,
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      interpreter.send({ type: 'request', id, request });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<REPLResult> {
    return this.#serially(async () => {
      const signal =
        options.signal === undefined
          ? this.#lifetime.signal
          : AbortSignal.any([options.signal, this.#lifetime.signal]);
      // Variables sent with the block (run metadata such as __rlm) are set first; one that cannot
      // be set rejects the block before it runs, as the ExecuteOptions contract says.
      for (const [name, value] of Object.entries(options.variables ?? {})) {
        await this.#set(name, value);
      }
      const started = performance.now();
      const value = await this.#request({ type: 'execute', code }, signal);
      this.#router.cancelAll();
      const parsed = rawBlockResultSchema.safeParse(value);
      const raw = parsed.success
        ? parsed.data
        : lostResult('fatal', 'the interpreter sent an invalid block result');
      const resetNote = raw.lost === null ? undefined : this.#replace(raw);
      return assembleResult(raw, {
        limits: this.#setup.limits,
        executionTime: performance.now() - started,
        ...(resetNote === undefined ? {} : { resetNote }),
      });
    });
  }

  /**
   * Starts replacing a lost interpreter with a fresh one and returns the note the model sees. The
   * block's result does not wait for it (an abort must settle promptly); the next request does.
   */
  #replace(raw: RawBlockResult): string {
    if (this.#interpreter !== undefined) this.#retire(this.#interpreter);
    this.#resets += 1;
    const why =
      raw.lost?.reason === 'unresponsive'
        ? 'the interpreter did not stop after it was interrupted'
        : 'the interpreter failed';
    this.#replacement = this.#start().catch((error: unknown) => {
      this.#poisonReason ??= `${why}, and a new one could not be started: ${describe(error)}`;
    });
    return `note: ${why}, so it is replaced by a fresh one: all variables were lost (the context, histories and host functions are back)\n`;
  }

  #retire(interpreter: InterpreterProcess): void {
    this.#retired.add(interpreter);
    interpreter.kill();
  }

  async getVariable(name: string): Promise<JsonValue | undefined> {
    return this.#serially(async () => {
      const reply = (await this.#request({ type: 'getVariable', name })) as {
        found: boolean;
        value?: JsonValue;
      };
      return reply.found ? (reply.value ?? null) : undefined;
    });
  }

  async setVariable(name: string, value: JsonValue): Promise<void> {
    assertSettable(name, value, Object.keys(this.#setup.functions));
    await this.#serially(() => this.#set(name, value));
  }

  async #set(name: string, value: JsonValue): Promise<void> {
    assertSettable(name, value, Object.keys(this.#setup.functions));
    await this.#request({ type: 'setVariable', name, json: JSON.stringify(value) });
    this.#hostVariables.set(name, value);
    this.#scanner?.setPayload(name, value);
  }

  async listVariables(): Promise<VariableInfo[]> {
    return this.#serially(
      async () => (await this.#request({ type: 'listVariables' })) as VariableInfo[],
    );
  }

  #serially<T>(task: () => Promise<T>): Promise<T> {
    if (this.#disposed) return Promise.reject(disposedError());
    return this.#queue.run(async () => {
      // A lost interpreter's replacement finishes before anything else runs.
      await this.#replacement;
      return this.#disposed ? Promise.reject(disposedError()) : task();
    });
  }

  /** Kills the interpreter process (interpreters are never reused) and stops the scan worker. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#unbind();
    this.#lifetime.abort();
    this.#router.cancelAll();
    this.#scanner?.dispose();
    this.#interpreter?.kill();
    for (const entry of this.#pending.values()) entry.reject(disposedError());
    this.#pending.clear();
    this.#boot?.reject(disposedError());
  }
}

function lostResult(reason: 'unresponsive' | 'fatal', detail: string): RawBlockResult {
  return {
    stdout: '',
    stderr: '',
    droppedStdout: 0,
    droppedStderr: 0,
    error: null,
    locals: {},
    finalAnswer: null,
    cleared: [],
    stop: null,
    lost: { reason, detail },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function poisonedError(reason: string): RlmError {
  return new RlmError({
    code: 'sandbox.poisoned',
    message: `the sandbox is poisoned and must be recreated: ${reason}`,
    details: { reason },
  });
}

function disposedError(): RlmError {
  return new RlmError({
    code: 'sandbox.disposed',
    message: 'the sandbox was disposed',
    details: {},
  });
}

/** A text payload's UTF-8; ASCII exactly when the bytes are as many as the characters. */
function textPayload(name: string, value: string): PayloadInit {
  const bytes = encoder.encode(value);
  return { name, kind: 'text', bytes, ascii: bytes.length === value.length };
}
