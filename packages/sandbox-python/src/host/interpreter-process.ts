import { type ChildProcess, fork } from 'node:child_process';
import { dirname } from 'node:path';
import type { FromSupervisor, LoadOptions, ToSupervisor } from '../child/child-messages.js';
import { builtScript } from './built-script.js';
import { fromSupervisorSchema } from './child-replies.js';
import { interpreterFlags, pyodideDirectory } from './permission-flags.js';

export interface SpawnOptions {
  memoryBytes: number;
  /** A snapshot to load from (faster), or null to load from scratch. */
  snapshot: Promise<Uint8Array | null>;
  /** Take a snapshot after loading; `loaded` then resolves with it. */
  makeSnapshot: boolean;
}

type Listener = (message: FromSupervisor) => void;

/**
 * One interpreter process, seen from the host: a child Node process started under the permission
 * model (see permission-flags.ts) with an empty environment, running child/supervisor.js, which
 * loads one Pyodide interpreter. It serves at most one sandbox and is killed afterwards.
 */
export class InterpreterProcess {
  readonly memoryBytes: number;
  /** Resolves once the interpreter is loaded (with a snapshot when one was asked for). */
  readonly loaded: Promise<Uint8Array | null>;
  readonly #child: ChildProcess;
  #listener: Listener | undefined;
  #exitListener: ((reason: string) => void) | undefined;
  #exitReason: string | undefined;

  private constructor(child: ChildProcess, memoryBytes: number) {
    this.#child = child;
    this.memoryBytes = memoryBytes;
    let settle: { resolve: (snapshot: Uint8Array | null) => void; reject: (error: Error) => void };
    this.loaded = new Promise((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Nobody may be waiting yet (a spare): a failure is reported to whoever takes it.
    this.loaded.catch(() => undefined);
    let isLoaded = false;
    child.on('message', (raw: unknown) => {
      const parsed = fromSupervisorSchema.safeParse(raw);
      if (!parsed.success) {
        this.kill();
        this.#exited('the interpreter process sent an invalid message');
        return;
      }
      const message = parsed.data;
      if (!isLoaded && (message.type === 'loaded' || message.type === 'failed')) {
        isLoaded = message.type === 'loaded';
        if (message.type === 'loaded') settle.resolve(message.snapshot);
        else {
          settle.reject(new Error(`the interpreter failed to load: ${message.message}`));
          this.kill();
        }
        return;
      }
      this.#listener?.(message);
    });
    child.on('exit', (code, signal) => {
      const reason = `the interpreter process exited (${signal ?? `code ${code}`})`;
      if (!isLoaded) settle.reject(new Error(reason));
      this.#exited(reason);
    });
    child.on('error', (error) => {
      const reason = `the interpreter process failed: ${error.message}`;
      if (!isLoaded) settle.reject(new Error(reason));
      this.#exited(reason);
    });
  }

  /** Starts a process and sends it the load options once the snapshot (if any) is known. */
  static spawn(options: SpawnOptions): InterpreterProcess {
    const supervisor = builtScript('../child/supervisor.js', import.meta.url);
    const pyodideDir = pyodideDirectory();
    const child = fork(supervisor, [String(process.pid)], {
      execArgv: interpreterFlags([pyodideDir, dirname(dirname(supervisor))]),
      env: {},
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const interpreter = new InterpreterProcess(child, options.memoryBytes);
    void options.snapshot.then((snapshot) => {
      const load: LoadOptions = {
        pyodideDir,
        memoryBytes: options.memoryBytes,
        snapshot,
        makeSnapshot: options.makeSnapshot,
      };
      interpreter.send({ type: 'load', options: load });
    });
    return interpreter;
  }

  /** The process id (for diagnostics and tests). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Why the process is gone, once it is. */
  get exitReason(): string | undefined {
    return this.#exitReason;
  }

  /** Routes the process's messages (and its exit) to one owner from now on. */
  attach(listener: Listener, onExit: (reason: string) => void): void {
    this.#listener = listener;
    this.#exitListener = onExit;
    if (this.#exitReason !== undefined) onExit(this.#exitReason);
  }

  send(message: ToSupervisor): void {
    if (this.#exitReason !== undefined || !this.#child.connected) return;
    this.#child.send(message);
  }

  /** Lets the host exit while this process waits (a spare), or keeps it alive (in use). */
  hold(held: boolean): void {
    if (held) {
      this.#child.ref();
      this.#child.channel?.ref();
    } else {
      this.#child.unref();
      this.#child.channel?.unref();
    }
  }

  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null)
      this.#child.kill('SIGKILL');
  }

  #exited(reason: string): void {
    if (this.#exitReason !== undefined) return;
    this.#exitReason = reason;
    this.#exitListener?.(reason);
  }
}
