import { anthropic } from '@rlm/executor';
import { type LanguageModel, RlmError } from '@rlm/protocol';

/**
 * Turns a model id from the command line into a client. Keys come from `env` (never from flags,
 * so they stay out of shell history and trajectories).
 *
 * @throws RlmError `model.missing_api_key`, `model.unknown_provider`
 */
export function resolveCliModel(
  id: string,
  env: Readonly<Record<string, string | undefined>>,
): LanguageModel {
  if (id.startsWith('anthropic/')) {
    const apiKey = env['ANTHROPIC_API_KEY'];
    if (apiKey === undefined || apiKey === '') {
      throw new RlmError({
        code: 'model.missing_api_key',
        message: 'ANTHROPIC_API_KEY is not set',
        details: { variable: 'ANTHROPIC_API_KEY' },
      });
    }
    const baseUrl = env['ANTHROPIC_BASE_URL'];
    return anthropic({
      model: id.slice('anthropic/'.length),
      apiKey,
      ...(baseUrl === undefined || baseUrl === '' ? {} : { baseURL: baseUrl }),
    });
  }
  throw new RlmError({
    code: 'model.unknown_provider',
    message: `Unknown model id ${id}`,
    details: { modelId: id },
  });
}
