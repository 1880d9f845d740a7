import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { findOfflinePolicyName, OFFLINE_POLICIES, offlineModel } from './offline-models.js';

describe('offline models', () => {
  it('accepts every policy in kebab-case and camelCase', () => {
    for (const name of Object.keys(OFFLINE_POLICIES)) {
      const camel = name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
      expect(findOfflinePolicyName(`testkit:${name}`)).toBe(name);
      expect(findOfflinePolicyName(`testkit:${camel}`)).toBe(name);
    }
  });

  it('offers needle-finder-grep, which the server had alone before', () => {
    expect(offlineModel('testkit:needle-finder-grep').id).toBe('testkit/needle-finder-grep');
  });

  it('refuses an unknown policy naming the known ones', () => {
    let error: unknown;
    try {
      offlineModel('testkit:oracle');
    } catch (caught) {
      error = caught;
    }
    expect(RlmError.is(error, 'model.unknown_provider')).toBe(true);
    expect((error as Error).message).toContain('testkit:needle-finder-grep');
  });

  it('takes extra policies from a door and lists them when an id is unknown', () => {
    const extraPolicies = { reference: () => () => 'FINAL(ref)' };
    expect(offlineModel('testkit:reference', { extraPolicies }).id).toBe('testkit/reference');
    expect(() => offlineModel('testkit:oracle', { extraPolicies })).toThrow(
      /testkit:reference, testkit:needle-finder/,
    );
  });

  it('costs nothing unless a price is given', () => {
    expect(offlineModel('testkit:needle-finder').pricing).toEqual({
      inputPerMTok: 0,
      outputPerMTok: 0,
    });
  });

  it('writes code in the REPL language it is given', async () => {
    const model = offlineModel('testkit:needle-finder', { repl: 'python' });
    const response = await model.complete({
      system: 'You have a REPL.',
      messages: [{ role: 'user', content: 'What is the magic number?' }],
    });
    expect(response.text).toMatch(/```repl/);
    expect(response.text).not.toMatch(/\bconst\b|\blet\b/);
  });
});
