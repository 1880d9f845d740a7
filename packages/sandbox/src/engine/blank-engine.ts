import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { GUEST_PRELUDE } from './guest-prelude.generated.js';
import { type CompiledEngine, loadQuickJs } from './load-quickjs.js';

/**
 * Stack limit while the prelude is evaluated: its code is flat, and this is the smallest limit a
 * sandbox uses (inline), so it is safe on any thread. The engine sets its own limit afterwards.
 */
const PRELUDE_STACK_BYTES = 128 * 1024;

/**
 * A fresh QuickJS instance (its own WASM instance and memory, a runtime and a context) with the
 * guest prelude evaluated to its factory, and nothing else: no config, no host function, no guest
 * code. It is the expensive, sandbox-independent part of starting an engine, so a pooled worker
 * builds one while it waits, and the next sandbox's engine starts from it (`QuickJsEngine.create`).
 *
 * The prelude cannot be compiled once per process (checked against quickjs-emscripten 0.32's FFI):
 * its binary-object functions write with `JS_WRITE_OBJ_REFERENCE` only and read without
 * `JS_READ_OBJ_BYTECODE`, so no bytecode crosses between instances; `evalCode` with `compileOnly`
 * yields a function-bytecode value that `callFunction` refuses ("not a function"), and nothing in
 * the FFI evaluates one (`JS_EvalFunction` is not exported). So every instance evaluates the
 * prelude once (most of a warm create's remaining CPU). Building the instance ahead of time moves
 * that work, and the WASM instantiation, off the path of the sandbox that asks for it; its memory
 * may be a wiped spare of an engine that is gone (see spare-memory.ts).
 */
export class BlankEngine {
  readonly module: QuickJSWASMModule;
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  /** `installScaffold` (see src/guest/install-scaffold.ts), not yet called. */
  readonly factory: QuickJSHandle;
  /** The size of its fixed WASM memory: a sandbox with another `memoryBytes` cannot use it. */
  readonly memoryBytes: number;
  #taken = false;

  private constructor(module: QuickJSWASMModule, memoryBytes: number) {
    this.module = module;
    this.memoryBytes = memoryBytes;
    this.runtime = module.newRuntime();
    this.runtime.setMaxStackSize(PRELUDE_STACK_BYTES);
    this.context = this.runtime.newContext();
    try {
      this.factory = this.context.unwrapResult(
        this.context.evalCode(GUEST_PRELUDE, 'prelude.js', { type: 'global' }),
      );
    } catch (error) {
      this.context.dispose();
      this.runtime.dispose();
      // Never pass on a QuickJS unwrap error: it holds the whole emscripten module.
      throw new Error(
        `the guest prelude failed to evaluate: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Instantiates the engine with a fixed memory of `memoryBytes` and evaluates the prelude. */
  static async create(memoryBytes: number, compiled?: CompiledEngine): Promise<BlankEngine> {
    return new BlankEngine(await loadQuickJs(memoryBytes, compiled), memoryBytes);
  }

  /** Hands the instance to one engine; a blank engine is used at most once. */
  take(): this {
    if (this.#taken) throw new Error('a blank engine is used only once');
    this.#taken = true;
    return this;
  }

  /** Frees an instance nobody took. */
  dispose(): void {
    if (this.#taken) return;
    this.#taken = true;
    this.factory.dispose();
    this.context.dispose();
    this.runtime.dispose();
  }
}
