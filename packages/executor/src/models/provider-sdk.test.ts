import { RlmError } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { loadAnthropicSdk, loadOpenAISdk, loadProviderSdk } from './provider-sdk.js';

describe('loadProviderSdk', () => {
  it('turns a failed SDK import into model.unknown_provider naming the package and model', async () => {
    const failure = new Error("Cannot find package 'openai'");
    const loading = loadProviderSdk('openai/gpt-x', 'openai', () => Promise.reject(failure));
    const error = await loading.catch((caught: unknown) => caught);
    expect(RlmError.is(error)).toBe(true);
    const rlmError = error as RlmError;
    expect(rlmError.code).toBe('model.unknown_provider');
    expect(rlmError.details).toEqual({ modelId: 'openai/gpt-x' });
    expect(rlmError.message).toContain("'openai'");
    expect(rlmError.cause).toBe(failure);
  });

  it('loads the real SDKs with the client classes and error classes the models use', async () => {
    const anthropic = await loadAnthropicSdk('anthropic/x');
    const openai = await loadOpenAISdk('openai/x');
    for (const sdk of [anthropic, openai]) {
      expect(typeof sdk.default).toBe('function');
      expect(typeof sdk.APIError).toBe('function');
      expect(typeof sdk.APIConnectionError).toBe('function');
      expect(typeof sdk.APIConnectionTimeoutError).toBe('function');
      expect(typeof sdk.APIUserAbortError).toBe('function');
    }
  });
});
