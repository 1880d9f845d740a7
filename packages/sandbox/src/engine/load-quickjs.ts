import RELEASE_SYNC from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';

const WASM_PAGE_BYTES = 64 * 1024;

// Node 20's type definitions do not declare the WebAssembly global; this is the part we use.
type WasmMemoryConstructor = new (descriptor: { initial: number; maximum: number }) => object;
type MemoryOption = Parameters<typeof newVariant>[1]['wasmMemory'];

/**
 * Loads a fresh QuickJS WASM module whose linear memory is fixed at `memoryBytes`.
 *
 * One module per sandbox: sandboxes never share an engine (a parent awaiting `rlm_query` while its
 * child evaluates would otherwise deadlock on a shared eval queue), and the fixed-size memory
 * (initial == maximum) is the only real memory cap — `setMemoryLimit` does not bound the WASM
 * builds. Untouched pages cost no resident memory, so a generous cap is cheap.
 */
export async function loadQuickJs(memoryBytes: number): Promise<QuickJSWASMModule> {
  const pages = Math.ceil(memoryBytes / WASM_PAGE_BYTES);
  const { Memory } = (globalThis as unknown as { WebAssembly: { Memory: WasmMemoryConstructor } })
    .WebAssembly;
  const wasmMemory = new Memory({ initial: pages, maximum: pages }) as MemoryOption;
  // The package's types describe its CommonJS build; under ESM the default import is the variant.
  const variant = RELEASE_SYNC as unknown as QuickJSSyncVariant;
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory }));
}
