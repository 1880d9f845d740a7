import { describe, expect, it } from 'vitest';
import { loadOptionalPeer } from './load-optional-peer.js';

describe('loadOptionalPeer', () => {
  it('returns the module when the package is installed', async () => {
    const module = await loadOptionalPeer({
      packageName: 'zod',
      kind: 'test',
      load: () => import('zod'),
    });
    expect(typeof module.z.object).toBe('function');
  });

  it('names the package to install when it is missing, as config.invalid', async () => {
    const specifier = 'rlm-package-that-is-not-installed';
    await expect(
      loadOptionalPeer({ packageName: specifier, kind: 'postgres', load: () => import(specifier) }),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining(`npm install ${specifier}`),
        details: {
          source: 'createStore options',
          issues: [expect.stringMatching(/^kind: 'postgres' needs the package/)],
        },
      }),
    );
  });

  it('reports a package that is installed but fails to load as memory.storage_failed', async () => {
    const broken = () => Promise.reject(new Error('native binding not built'));
    await expect(
      loadOptionalPeer({ packageName: 'better-sqlite3', kind: 'sqlite', load: broken }),
    ).rejects.toThrow(
      expect.objectContaining({
        code: 'memory.storage_failed',
        message: expect.stringContaining('native binding not built'),
      }),
    );
  });
});
