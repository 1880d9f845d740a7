/**
 * A value built on first use and kept: the governance lexicons are folded into tables (~25 ms of
 * CPU) only when a text is first inspected, not when the package is imported, since most runs
 * never inspect one.
 */
export function builtOnce<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}
