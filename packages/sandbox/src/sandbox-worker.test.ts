import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Specifiers a compiled module loads when it is imported (dynamic `import()` is not followed). */
function staticImports(source: string): string[] {
  const pattern = /^(?:import|export)\s[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm;
  return [...source.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? '');
}

/**
 * The packages a worker loads at start-up from `entry`, following our own modules (relative
 * imports and `@rlm/*` packages, resolved as Node would) and listing every other package.
 */
function packagesLoadedBy(entry: URL): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: URL): void => {
    if (seen.has(file.href)) return;
    seen.add(file.href);
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(new URL(specifier, file));
      else if (specifier.startsWith('@rlm/')) {
        packages.add(specifier);
        visit(new URL(import.meta.resolve(specifier)));
      } else packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

// Runs on the build (the test script builds first): that is what a worker really imports.
const dist = (file: string): URL => new URL(`../dist/${file}`, import.meta.url);

describe('the sandbox worker entry', () => {
  it('loads no zod and only the zod-free core of @rlm/protocol, so a fresh worker starts fast', () => {
    const packages = packagesLoadedBy(dist('sandbox-worker.js'));
    expect(packages.has('@rlm/protocol/core')).toBe(true);
    expect(packages.has('quickjs-emscripten-core')).toBe(true);
    expect(packages.has('@rlm/protocol')).toBe(false);
    expect([...packages].filter((name) => name === 'zod' || name.startsWith('zod/'))).toEqual([]);
  });

  it('is checked by a walk that does see zod where it is loaded', () => {
    const packages = packagesLoadedBy(dist('index.js'));
    expect(packages.has('zod')).toBe(true);
    expect(packages.has('@rlm/protocol')).toBe(true);
  });
});
