import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { GUEST_PRELUDE } from './guest-prelude.generated.js';
import { type CompiledEngine, loadQuickJs } from './load-quickjs.js';
import { ImageRecorder, type PreludeImage, restoreImage } from './prelude-image.js';
import { breakSearchedOn } from './spare-memory.js';

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
 * the FFI evaluates one (`JS_EvalFunction` is not exported). Parsing and compiling it was most of
 * a warm create's CPU, so the first blank engine of each memory size on a thread evaluates it and
 * keeps an image of its memory, and later ones start from that image (see prelude-image.ts).
 * Building the instance ahead of time moves the remaining work, and the WASM instantiation, off
 * the path of the sandbox that asks for it; its memory may be a wiped spare of an engine that is
 * gone (see spare-memory.ts).
 */
export class BlankEngine {
  readonly module: QuickJSWASMModule;
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  /** `installScaffold` (see src/guest/install-scaffold.ts), not yet called. */
  readonly factory: QuickJSHandle;
  /** The size of its fixed WASM memory: a sandbox with another `memoryBytes` cannot use it. */
  readonly memoryBytes: number;
  /** Whether it started from this thread's prelude image rather than evaluating the prelude. */
  readonly restored: boolean;
  #taken = false;

  private constructor(parts: {
    module: QuickJSWASMModule;
    runtime: QuickJSRuntime;
    context: QuickJSContext;
    factory: QuickJSHandle;
    memoryBytes: number;
    restored: boolean;
  }) {
    this.module = parts.module;
    this.runtime = parts.runtime;
    this.context = parts.context;
    this.factory = parts.factory;
    this.memoryBytes = parts.memoryBytes;
    this.restored = parts.restored;
  }

  /**
   * Instantiates the engine with a fixed memory of `memoryBytes` and evaluates the prelude, or
   * starts from this thread's image of an engine that did.
   */
  static async create(memoryBytes: number, compiled?: CompiledEngine): Promise<BlankEngine> {
    const module = await loadQuickJs(memoryBytes, compiled);
    const runtime = module.newRuntime();
    runtime.setMaxStackSize(PRELUDE_STACK_BYTES);
    const image = images.get(memoryBytes);
    if (image) {
      const restored = restoreImage(image, module, runtime);
      if (restored !== undefined) {
        return new BlankEngine({ module, runtime, memoryBytes, restored: true, ...restored });
      }
      // This instance does not match the image: evaluate, and never try an image of this size again.
      images.set(memoryBytes, null);
    }
    // The image is taken from an instance as fresh as the ones it starts: not the one the break
    // search allocated on (see spare-memory.ts); the next one records it then.
    const recorder =
      image === undefined && !breakSearchedOn(module)
        ? new ImageRecorder(module, memoryBytes)
        : undefined;
    recorder?.afterRuntime();
    const context = runtime.newContext();
    recorder?.afterContext(context);
    let factory: QuickJSHandle;
    try {
      factory = context.unwrapResult(
        context.evalCode(GUEST_PRELUDE, 'prelude.js', { type: 'global' }),
      );
    } catch (error) {
      context.dispose();
      runtime.dispose();
      // Never pass on a QuickJS unwrap error: it holds the whole emscripten module.
      throw new Error(
        `the guest prelude failed to evaluate: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (recorder !== undefined) keepImage(memoryBytes, recorder.take(runtime, context, factory));
    return new BlankEngine({ module, runtime, context, factory, memoryBytes, restored: false });
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

/** Images kept per thread (a thread's sandboxes rarely use more than one memory size). */
const MAX_IMAGES = 2;

/**
 * This thread's prelude images by memory size; `null` for a size whose image could not be taken
 * or did not match an instance (that size always evaluates the prelude).
 */
const images = new Map<number, PreludeImage | null>();

function keepImage(memoryBytes: number, image: PreludeImage | undefined): void {
  if (images.size >= MAX_IMAGES) {
    const oldest = images.keys().next().value;
    if (oldest !== undefined) images.delete(oldest);
  }
  images.set(memoryBytes, image ?? null);
}
