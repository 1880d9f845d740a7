import { RlmError } from '@rlm/protocol';
import { startFakeAnthropic, startFakeOpenAI } from '@rlm/testkit';
import { describe, expect, it } from 'vitest';
import { resolveModel } from './resolve-model.js';

function thrown(run: () => unknown): RlmError {
  try {
    run();
  } catch (error) {
    if (RlmError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

describe('resolveModel', () => {
  it('builds an Anthropic client from env key and base URL', async () => {
    await using server = await startFakeAnthropic({ script: 'from env' });
    const model = resolveModel('anthropic/claude-sonnet-5-5', {
      env: { ANTHROPIC_API_KEY: 'sk-env', ANTHROPIC_BASE_URL: server.url },
    });
    expect(model.id).toBe('anthropic/claude-sonnet-5-5');
    await expect(
      model.complete({ messages: [{ role: 'user', content: 'hi' }] }),
    ).resolves.toMatchObject({ text: 'from env' });
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-env');
  });

  it('reports a missing key as model.auth naming the variable, the option and the local endpoint', () => {
    const error = thrown(() => resolveModel('anthropic/claude-sonnet-5-5', { env: {} }));
    expect(error).toMatchObject({
      code: 'model.auth',
      details: { variable: 'ANTHROPIC_API_KEY', option: 'apiKey' },
    });
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).toContain('`apiKey`');
    expect(error.message).toContain('openai-compatible/');
    expect(
      thrown(() => resolveModel('openai/gpt-5', { env: { OPENAI_API_KEY: '' } })),
    ).toMatchObject({ code: 'model.auth', details: { variable: 'OPENAI_API_KEY' } });
    expect(thrown(() => resolveModel('openrouter/openai/gpt-5', { env: {} }))).toMatchObject({
      code: 'model.auth',
      details: { variable: 'OPENROUTER_API_KEY' },
    });
  });

  it('serves openai-compatible ids with an @url and no key', async () => {
    await using server = await startFakeOpenAI({ flavor: 'vllm', script: 'local' });
    const model = resolveModel(`openai-compatible/Qwen/Qwen3-8B@${server.url}`);
    expect(model.id).toBe('openai-compatible/Qwen/Qwen3-8B');
    await expect(
      model.complete({ messages: [{ role: 'user', content: 'hi' }] }),
    ).resolves.toMatchObject({ text: 'local' });
    expect(server.requests[0]?.body).toMatchObject({ model: 'Qwen/Qwen3-8B' });
  });

  it('lets openai/ ids use a local OPENAI_BASE_URL without a key', async () => {
    await using server = await startFakeOpenAI({ flavor: 'ollama', script: 'ollama says hi' });
    const model = resolveModel('openai/llama3', { env: { OPENAI_BASE_URL: server.url } });
    await expect(
      model.complete({ messages: [{ role: 'user', content: 'hi' }] }),
    ).resolves.toMatchObject({ text: 'ollama says hi' });
  });

  it('rejects unknown providers and malformed ids', () => {
    expect(thrown(() => resolveModel('gemini/pro'))).toMatchObject({
      code: 'model.unknown_provider',
      details: { modelId: 'gemini/pro' },
    });
    expect(thrown(() => resolveModel('anthropic/', { env: { ANTHROPIC_API_KEY: 'k' } })).code).toBe(
      'config.invalid',
    );
    expect(thrown(() => resolveModel('openai-compatible/qwen')).code).toBe('config.invalid');
  });
});

describe('resolveModel thinking and effort', () => {
  it('passes them to anthropic/ models and refuses them for any other', () => {
    const env = { ANTHROPIC_API_KEY: 'sk', OPENAI_API_KEY: 'sk' };
    const thinking = { type: 'enabled' as const, budgetTokens: 2_000 };
    const model = resolveModel('anthropic/claude-sonnet-5-5', { env, thinking, maxTokens: 1_000 });
    expect(model.maxOutputTokens).toBe(3_000);
    expect(() => resolveModel('openai/gpt-5-mini', { env, effort: 'high' })).toThrow(
      expect.objectContaining({
        code: 'config.invalid',
        message: expect.stringContaining('anthropic/'),
      }),
    );
  });
});
