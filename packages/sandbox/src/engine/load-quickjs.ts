import { readFile } from 'node:fs/promises';
import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { registerMemory, takeSpareMemory } from './spare-memory.js';

const WASM_PAGE_BYTES = 64 * 1024;

// Node 20's type definitions do not declare the WebAssembly global; these are the parts we use.
type CustomizeOptions = Parameters<typeof newVariant>[1];
type WasmMemory = NonNullable<CustomizeOptions['wasmMemory']>;
type WasmModule = NonNullable<CustomizeOptions['wasmModule']>;
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
}
/** A compiled `WebAssembly.Module` of the engine; it can be posted to a worker. */
export type CompiledEngine = WasmModule;

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * The compiled engine code, shared by every sandbox on this thread. A compiled
 * `WebAssembly.Module` is immutable (each sandbox still gets its own instance and memory), so
 * caching it shares no state between sandboxes; it saves compiling ~1 MB of WASM per sandbox.
 */
let compiled: Promise<WasmModule> | undefined;

/** The compiled QuickJS engine (compiled once per thread; a worker can be handed this one). */
export function compiledEngine(): Promise<WasmModule> {
  compiled ??= readFile(new URL(import.meta.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')))
    .then((bytes) => wasm.compile(bytes))
    .catch((error: unknown) => {
      compiled = undefined;
      throw error;
    });
  return compiled;
}

/**
 * Instantiates a fresh QuickJS WASM module whose linear memory is fixed at `memoryBytes`.
 *
 * One module instance per sandbox: sandboxes never share an engine (a parent awaiting `rlm_query`
 * while its child evaluates would otherwise deadlock on a shared eval queue), and the fixed-size
 * memory (initial == maximum) is the only real memory cap — `setMemoryLimit` does not bound the
 * WASM builds. Untouched pages cost no resident memory, so a generous cap is cheap.
 */
export async function loadQuickJs(
  memoryBytes: number,
  precompiled?: CompiledEngine,
): Promise<QuickJSWASMModule> {
  const pages = Math.ceil(memoryBytes / WASM_PAGE_BYTES);
  const wasmModule = precompiled ?? (await compiledEngine());
  // A wiped memory of an engine that is gone, when this thread keeps one (see spare-memory.ts).
  const wasmMemory =
    (takeSpareMemory(pages * WASM_PAGE_BYTES) as WasmMemory | undefined) ??
    new wasm.Memory({ initial: pages, maximum: pages });
  // The package's types describe its CommonJS build; under ESM the default import is the variant.
  const variant = RELEASE_SYNC as unknown as QuickJSSyncVariant;
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmMemory, wasmModule }),
  );
  registerMemory(module, wasmMemory as unknown as { buffer: ArrayBuffer });
  return module;
}
