import { RlmError } from '@rlm/protocol';

export type AnthropicSdk = typeof import('@anthropic-ai/sdk');
export type OpenAISdk = typeof import('openai');

/**
 * Loads a provider SDK on first use. The SDKs take a large share of the executor's import time,
 * and an offline run (`testkit:` models) never needs them, so they load when a provider model
 * first sends a request. A failed load is a usage error naming the package, never a raw
 * module-resolution error.
 */
export async function loadProviderSdk<T>(
  modelId: string,
  packageName: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new RlmError({
      code: 'model.unknown_provider',
      message: `${modelId}: the provider SDK '${packageName}' could not be loaded (${error instanceof Error ? error.message : String(error)}); install it next to @rlm/executor`,
      details: { modelId },
      cause: error,
    });
  }
}

/** The Anthropic SDK, loaded once per model client. */
export function loadAnthropicSdk(modelId: string): Promise<AnthropicSdk> {
  return loadProviderSdk(modelId, '@anthropic-ai/sdk', () => import('@anthropic-ai/sdk'));
}

/** The openai SDK, loaded once per model client. */
export function loadOpenAISdk(modelId: string): Promise<OpenAISdk> {
  return loadProviderSdk(modelId, 'openai', () => import('openai'));
}
