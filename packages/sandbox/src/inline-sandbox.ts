import type { ExecuteOptions, JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { QuickJsEngine } from './engine/quickjs-engine.js';
import { createHostCaller } from './host-functions.js';
import type { GetVariableOptions, Sandbox } from './sandbox.js';
import { assertSettable, disposedError } from './sandbox-guards.js';
import { bindToSignal, type SandboxSetup } from './sandbox-setup.js';
import { SerialQueue } from './serial-queue.js';

/**
 * A sandbox whose engine runs on the calling thread. CPU-bound guest code blocks this thread's
 * event loop for up to `cpuSliceMs`, and an abort can only be noticed when the guest awaits or
 * at the engine's next interrupt check. Nothing can stop a single native builtin that runs long
 * (a `JSON.stringify` of a huge value): it blocks this thread until it returns, past any limit.
 * This mode suits tests and small tools; servers should use worker isolation, whose watchdog
 * terminates such a block.
 */
export class InlineSandbox implements Sandbox {
  readonly isolation = 'inline' as const;
  readonly #setup: SandboxSetup;
  readonly #queue = new SerialQueue();
  readonly #lifetime = new AbortController();
  /** What the host set with `setVariable`, replayed on a fresh engine after a reset. */
  readonly #variables = new Map<string, JsonValue>();
  #engine: QuickJsEngine;
  #disposed = false;
  #resets = 0;
  #unbind: () => void = () => {};

  private constructor(setup: SandboxSetup, engine: QuickJsEngine) {
    this.#setup = setup;
    this.#engine = engine;
  }

  static async create(setup: SandboxSetup): Promise<InlineSandbox> {
    let sandbox: InlineSandbox | undefined;
    const engine = await InlineSandbox.#start(setup, () => sandbox?.disposed === true, []);
    sandbox = new InlineSandbox(setup, engine);
    sandbox.#unbind = bindToSignal(setup.signal, () => sandbox?.dispose());
    return sandbox;
  }

  static #start(
    { init, functions }: SandboxSetup,
    disposed: () => boolean,
    variables: [string, JsonValue][],
  ): Promise<QuickJsEngine> {
    const caller = createHostCaller(functions, {
      gate: disposed,
      maxHostCallChars: init.limits.maxHostCallChars,
    });
    return QuickJsEngine.create({ ...init, variables }, caller);
  }

  get poisoned(): boolean {
    return this.#engine.poisonReason !== undefined;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  get resets(): number {
    return this.#resets;
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<REPLResult> {
    const variables = Object.entries(options.variables ?? {});
    for (const [name, value] of variables) {
      assertSettable(name, value, this.#setup.init.functionNames);
    }
    return this.#serially(async () => {
      for (const [name, value] of variables) {
        this.#engine.setVariable(name, value);
        this.#variables.set(name, value);
      }
      // The caller's signal and the sandbox's lifetime both stop the block, without a signal
      // linking them (see `EngineRunOptions.alsoSignal`).
      const result = await this.#engine.execute(
        code,
        options.signal === undefined
          ? { signal: this.#lifetime.signal }
          : { signal: this.#lifetime.signal, alsoSignal: options.signal },
      );
      // The engine could not stop what the block left running: replace it (the result says so).
      if (result.error?.code === 'sandbox.reset') await this.#restart();
      return result;
    });
  }

  async #restart(): Promise<void> {
    this.#resets += 1;
    const previous = this.#engine;
    this.#engine = await InlineSandbox.#start(this.#setup, () => this.#disposed, [
      ...this.#variables,
    ]);
    previous.dispose();
  }

  async getVariable(
    name: string,
    options: GetVariableOptions = {},
  ): Promise<JsonValue | undefined> {
    return this.#serially(async () =>
      this.#engine.getVariable(name, { ...options, signal: this.#lifetime.signal }),
    );
  }

  async setVariable(name: string, value: JsonValue): Promise<void> {
    assertSettable(name, value, this.#setup.init.functionNames);
    return this.#serially(async () => {
      this.#engine.setVariable(name, value);
      this.#variables.set(name, value);
    });
  }

  async listVariables(): Promise<VariableInfo[]> {
    return this.#serially(async () =>
      this.#engine.listVariables({ signal: this.#lifetime.signal }),
    );
  }

  #serially<T>(task: () => Promise<T>): Promise<T> {
    if (this.#disposed) return Promise.reject(disposedError());
    return this.#queue.run(() => (this.#disposed ? Promise.reject(disposedError()) : task()));
  }

  dispose(): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    this.#disposed = true;
    this.#unbind();
    this.#lifetime.abort();
    // Queued work sees `disposed` and rejects; a running block stops at its next interrupt check.
    return this.#queue.run(async () => this.#engine.dispose());
  }
}
