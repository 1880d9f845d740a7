const WASM_PAGE_BYTES = 64 * 1024;

interface MemoryDescriptor {
  initial: number;
  maximum?: number;
  shared?: boolean;
}
type MemoryConstructor = new (descriptor: MemoryDescriptor) => object;
/** Node's types do not declare the WebAssembly namespace; this is the part used here. */
const wasm = (globalThis as unknown as { WebAssembly: { Memory: MemoryConstructor } }).WebAssembly;

/**
 * Caps every WebAssembly memory created in this thread from now on at `memoryBytes`: Pyodide
 * creates its memory with a 4 GiB maximum and grows it on demand. With a lower maximum, growth
 * past the cap fails inside the interpreter, which raises `MemoryError` and stays usable. The
 * maximum is fixed when the memory is created, so it holds even against code that grows memory
 * from WebAssembly itself.
 */
export function capWasmMemory(memoryBytes: number): void {
  const Original = wasm.Memory;
  const capPages = Math.floor(memoryBytes / WASM_PAGE_BYTES);
  const Capped = function Memory(descriptor: MemoryDescriptor): object {
    const maximum = descriptor.maximum ?? capPages;
    const capped =
      maximum > capPages && descriptor.initial <= capPages
        ? { ...descriptor, maximum: capPages }
        : descriptor;
    return new Original(capped);
  } as unknown as MemoryConstructor;
  Object.defineProperty(Capped, 'prototype', { value: Original.prototype });
  wasm.Memory = Capped;
}
