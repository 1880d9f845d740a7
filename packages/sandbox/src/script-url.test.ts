import { describe, expect, it } from 'vitest';
import { scriptUrl } from './script-url.js';

describe('scriptUrl', () => {
  it('uses the built copy in dist when the script is not beside the caller', () => {
    const url = scriptUrl(
      './scan-worker.js',
      'file:///home/src/repo/packages/sandbox/src/context-ops/x.ts',
    );
    expect(url.href).toBe('file:///home/src/repo/packages/sandbox/dist/context-ops/scan-worker.js');
  });

  it('finds the compiled worker of this package', () => {
    expect(scriptUrl('./sandbox-worker.js', import.meta.url).pathname).toMatch(
      /\/dist\/sandbox-worker\.js$/,
    );
  });
});
