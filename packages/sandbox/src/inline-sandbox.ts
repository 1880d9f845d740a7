import type { ExecuteOptions, JsonValue, REPLResult, VariableInfo } from '@rlm/protocol';
import { QuickJsEngine } from './engine/quickjs-engine.js';
import { createHostCaller } from './host-functions.js';
import type { Sandbox } from './sandbox.js';
import { assertSettable, disposedError } from './sandbox-guards.js';
import { bindToSignal, type SandboxSetup } from './sandbox-setup.js';
import { SerialQueue } from './serial-queue.js';

/**
 * A sandbox whose engine runs on the calling thread. CPU-bound guest code blocks this thread's
 * event loop for up to `cpuSliceMs`, and an abort can only be noticed when the guest awaits, so
 * this mode suits tests and small tools; servers should use worker isolation.
 */
export class InlineSandbox implements Sandbox {
  readonly isolation = 'inline' as const;
  readonly #engine: QuickJsEngine;
  readonly #functionNames: string[];
  readonly #queue = new SerialQueue();
  readonly #lifetime = new AbortController();
  #disposed = false;
  #unbind: () => void = () => {};

  private constructor(engine: QuickJsEngine, functionNames: string[]) {
    this.#engine = engine;
    this.#functionNames = functionNames;
  }

  static async create({ init, functions, signal }: SandboxSetup): Promise<InlineSandbox> {
    const engine = await QuickJsEngine.create(init, createHostCaller(functions));
    const sandbox = new InlineSandbox(engine, init.functionNames);
    sandbox.#unbind = bindToSignal(signal, () => sandbox.dispose());
    return sandbox;
  }

  get poisoned(): boolean {
    return this.#engine.poisonReason !== undefined;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  async execute(code: string, options: ExecuteOptions = {}): Promise<REPLResult> {
    return this.#serially(() => {
      const signal =
        options.signal === undefined
          ? this.#lifetime.signal
          : AbortSignal.any([options.signal, this.#lifetime.signal]);
      return this.#engine.execute(code, { signal });
    });
  }

  async getVariable(name: string): Promise<JsonValue | undefined> {
    return this.#serially(async () => this.#engine.getVariable(name));
  }

  async setVariable(name: string, value: JsonValue): Promise<void> {
    assertSettable(name, value, this.#functionNames);
    return this.#serially(async () => this.#engine.setVariable(name, value));
  }

  async listVariables(): Promise<VariableInfo[]> {
    return this.#serially(async () => this.#engine.listVariables());
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
