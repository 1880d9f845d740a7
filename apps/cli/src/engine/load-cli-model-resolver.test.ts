import { describe, expect, it } from 'vitest';
import { loadCliModelResolver } from './load-cli-model-resolver.js';
import { resolveCliModel, TESTKIT_PREFIX } from './resolve-cli-model.js';
import { resolveProviderModel } from './resolve-provider-model.js';

describe('loadCliModelResolver', () => {
  it('loads the offline policies only for a run with a testkit model among its ids', async () => {
    expect(await loadCliModelResolver(['anthropic/claude-sonnet-4-5', undefined])).toBe(
      resolveProviderModel,
    );
    expect(await loadCliModelResolver(['anthropic/claude-sonnet-4-5', 'testkit:reference'])).toBe(
      resolveCliModel,
    );
    expect(await loadCliModelResolver([`${TESTKIT_PREFIX}needle-finder`])).toBe(resolveCliModel);
  });

  it('resolves a provider id as resolveCliModel does, missing key and all', () => {
    const env = {};
    expect(() => resolveProviderModel('anthropic/claude-sonnet-4-5', env)).toThrow(
      /ANTHROPIC_API_KEY/,
    );
    expect(() => resolveCliModel('anthropic/claude-sonnet-4-5', env)).toThrow(/ANTHROPIC_API_KEY/);
    const withKey = { ANTHROPIC_API_KEY: 'sk-test' };
    expect(resolveProviderModel('anthropic/claude-sonnet-4-5', withKey).id).toBe(
      resolveCliModel('anthropic/claude-sonnet-4-5', withKey).id,
    );
  });
});
