import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/**
 * The parts of quickjs-emscripten-core 0.32 (pinned exactly) that `callFunction` and `getString`
 * use. They are not public API, so each is checked before use and the public path is the
 * fallback (see also new-guest-string.ts).
 */
interface ContextInternals {
  module?: {
    _malloc(size: number): number;
    _free(ptr: number): void;
    HEAPU8: Uint8Array;
    UTF8ToString(ptr: number): string;
  };
  ffi?: {
    QTS_Call(ctx: number, fn: number, self: number, argc: number, argv: number): number;
    QTS_ResolveException(ctx: number, maybeException: number): number;
    QTS_GetString(ctx: number, value: number): number;
    QTS_FreeCString(ctx: number, text: number): void;
    QTS_FreeValuePointer(ctx: number, value: number): void;
  };
  ctx?: { value: number };
}

/** Arguments the preallocated list has room for (more go through the public API). */
const MAX_ARGUMENTS = 3;

/** The guest function threw (its error is freed); what it means is the caller's to say. */
export class TextCallFailed extends Error {}

/**
 * Calls a guest function with a few arguments and reads its string result: the scaffold's call at
 * the end of every block. The library's `callFunction` builds two typed-array views and a
 * `malloc`ed argument list per call, and wraps the result in a handle only to read and free it;
 * this writes the argument into a list allocated once and reads the result through the same FFI
 * functions the library calls, so the guest sees the very same call.
 */
export class TextCall {
  readonly #context: QuickJSContext;
  readonly #internals: Required<ContextInternals> | undefined;
  /** Room for `MAX_ARGUMENTS` argument pointers, allocated on first use, freed by `dispose`. */
  #argv = 0;

  constructor(context: QuickJSContext) {
    this.#context = context;
    const { module, ffi, ctx } = context as unknown as ContextInternals;
    const usable =
      module !== undefined &&
      ffi !== undefined &&
      ctx !== undefined &&
      typeof module._malloc === 'function' &&
      typeof module.UTF8ToString === 'function' &&
      typeof ffi.QTS_Call === 'function' &&
      typeof ffi.QTS_ResolveException === 'function' &&
      typeof ffi.QTS_GetString === 'function' &&
      typeof ffi.QTS_FreeCString === 'function' &&
      typeof ffi.QTS_FreeValuePointer === 'function';
    this.#internals = usable ? { module, ffi, ctx } : undefined;
  }

  /**
   * `fn(...args)` with `this` undefined, as a string.
   *
   * @throws TextCallFailed when the guest function threw (or was interrupted)
   */
  call(fn: QuickJSHandle, ...args: QuickJSHandle[]): string {
    const internals = this.#internals;
    const argv = internals === undefined ? 0 : this.#argumentList(internals);
    if (internals === undefined || argv === 0 || args.length > MAX_ARGUMENTS) {
      return this.#publicCall(fn, args);
    }
    const { module, ffi, ctx } = internals;
    // The argument list holds pointers to the arguments' JSValues (little-endian, as WASM).
    const heap = module.HEAPU8;
    for (let index = 0; index < args.length; index++) {
      const pointer = (args[index] as QuickJSHandle).value as number;
      const at = argv + index * 4;
      heap[at] = pointer & 0xff;
      heap[at + 1] = (pointer >>> 8) & 0xff;
      heap[at + 2] = (pointer >>> 16) & 0xff;
      heap[at + 3] = (pointer >>> 24) & 0xff;
    }
    const self = this.#context.undefined.value as number;
    const result = ffi.QTS_Call(ctx.value, fn.value as number, self, args.length, argv);
    const error = ffi.QTS_ResolveException(ctx.value, result);
    if (error !== 0) {
      ffi.QTS_FreeValuePointer(ctx.value, result);
      ffi.QTS_FreeValuePointer(ctx.value, error);
      throw new TextCallFailed('the guest function threw');
    }
    try {
      const text = ffi.QTS_GetString(ctx.value, result);
      try {
        return module.UTF8ToString(text);
      } finally {
        ffi.QTS_FreeCString(ctx.value, text);
      }
    } finally {
      ffi.QTS_FreeValuePointer(ctx.value, result);
    }
  }

  #argumentList(internals: Required<ContextInternals>): number {
    if (this.#argv === 0) this.#argv = internals.module._malloc(MAX_ARGUMENTS * 4);
    return this.#argv;
  }

  #publicCall(fn: QuickJSHandle, args: QuickJSHandle[]): string {
    const context = this.#context;
    const result = context.callFunction(fn, context.undefined, args);
    if (result.error) {
      result.error.dispose();
      throw new TextCallFailed('the guest function threw');
    }
    try {
      return context.getString(result.value);
    } finally {
      result.value.dispose();
    }
  }

  /** Frees the argument list (before the runtime is freed). */
  dispose(): void {
    if (this.#argv !== 0) this.#internals?.module._free(this.#argv);
    this.#argv = 0;
  }
}
