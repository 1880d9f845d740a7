import { type LanguageModel, type ModelPricing, RlmError } from '@rlm/protocol';
import { type AISDKLanguageModel, fromAISDK, isAISDKLanguageModel } from './ai-sdk-model.js';
import { anthropic, DEFAULT_ANTHROPIC_BASE_URL } from './anthropic-model.js';
import type { AnthropicEffort, AnthropicThinking, PromptCachingMode } from './anthropic-params.js';
import { missingKeyError } from './model-error.js';
import type { ModelLimiter } from './model-limiter.js';
import { openaiCompatible } from './openai-compatible-model.js';

/** OpenAI's own endpoint. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** OpenRouter's OpenAI-compatible endpoint. */
export const OPENROUTER_BASE_URL = 'https://openrouter.ai/api/v1';

/** The providers `resolveModel` understands, as the part of the id before the first `/`. */
export const MODEL_PROVIDERS = ['anthropic', 'openai', 'openrouter', 'openai-compatible'] as const;

export interface ResolveModelOptions {
  /**
   * Where keys and base URLs come from: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`,
   * `OPENAI_BASE_URL`, `OPENROUTER_API_KEY`. Apps pass `process.env`; packages never read it.
   * @default {}
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Overrides the key from `env`. */
  apiKey?: string;
  /** Overrides the base URL from `env` (and the `@url` of an `openai-compatible/` id). */
  baseURL?: string;
  /** A limiter shared by the run tree. */
  limiter?: ModelLimiter;
  maxConcurrency?: number;
  maxRetries?: number;
  timeoutMs?: number;
  maxTokens?: number;
  contextWindow?: number;
  /** Anthropic only. @default 'auto' */
  promptCaching?: PromptCachingMode;
  /** Anthropic only: extended thinking (see `AnthropicOptions.thinking`). */
  thinking?: AnthropicThinking;
  /** Anthropic only: `output_config.effort`. */
  effort?: AnthropicEffort;
  /** Prices for an AI SDK model (`fromAISDK`'s `pricing`); ids use their own price tables. */
  pricing?: ModelPricing;
  fetch?: typeof fetch;
}

const LOCAL_HINT =
  'To use a local server without a key, use openai-compatible/<model>@http://127.0.0.1:8000/v1 (vLLM, Ollama, llama.cpp).';

/**
 * Builds a model client from a `provider/model` id:
 * - `anthropic/claude-sonnet-5-5` (key `ANTHROPIC_API_KEY`, base URL `ANTHROPIC_BASE_URL`);
 * - `openai/gpt-…` (key `OPENAI_API_KEY`, base URL `OPENAI_BASE_URL`; no key needed when the base
 *   URL points elsewhere than OpenAI);
 * - `openrouter/<vendor>/<model>` (key `OPENROUTER_API_KEY`);
 * - `openai-compatible/<model>@http://host:port/v1` (key optional; without `@url`, `OPENAI_BASE_URL`);
 * - a Vercel AI SDK language model object (`google('gemini-2.5-flash')`), adapted by `fromAISDK`
 *   with the options that apply to it (`maxTokens`, `contextWindow`, `pricing`, `maxRetries`,
 *   `timeoutMs`, `limiter`, `maxConcurrency`).
 *
 * @throws RlmError `model.auth` for a missing key (naming the variable to set and the `apiKey`
 *   option), `model.unknown_provider`, `config.invalid` for a malformed id (or `thinking`/`effort`
 *   for a model that is not `anthropic/`).
 * @example
 * const model = resolveModel('anthropic/claude-sonnet-5-5', { env: process.env });
 */
export function resolveModel(
  modelId: string | AISDKLanguageModel,
  options: ResolveModelOptions = {},
): LanguageModel {
  const slash = typeof modelId === 'string' ? modelId.indexOf('/') : -1;
  const provider =
    typeof modelId !== 'string' ? 'ai-sdk' : slash < 0 ? modelId : modelId.slice(0, slash);
  if (
    provider !== 'anthropic' &&
    (options.thinking !== undefined || options.effort !== undefined)
  ) {
    // Ignoring them would run a model without the thinking or effort the caller asked for.
    throw new RlmError({
      code: 'config.invalid',
      message: `thinking and effort apply to anthropic/ models, not to ${typeof modelId === 'string' ? modelId : 'an AI SDK model (set them in its providerOptions)'}`,
      details: {
        source: 'resolveModel options',
        issues: ['thinking/effort: anthropic/ models only'],
      },
    });
  }
  if (typeof modelId !== 'string') return fromAISDKModel(modelId, options);
  const rest = slash < 0 ? '' : modelId.slice(slash + 1);
  if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new RlmError({
      code: 'model.unknown_provider',
      message: `Unknown model provider in "${modelId}": expected one of ${MODEL_PROVIDERS.map((name) => `${name}/…`).join(', ')}`,
      details: { modelId },
    });
  }
  if (rest === '') throw invalidId(modelId, 'the model name after the provider is empty');

  return BUILDERS[provider as ModelProvider](rest, { modelId, options });
}

type ModelProvider = (typeof MODEL_PROVIDERS)[number];

interface BuildContext {
  modelId: string;
  options: ResolveModelOptions;
}

/** Client options shared by every provider (everything but keys, URLs, prices and Anthropic's own). */
function sharedOptions({
  env: _env,
  apiKey: _key,
  baseURL: _url,
  promptCaching: _caching,
  pricing: _pricing,
  thinking: _thinking,
  effort: _effort,
  ...shared
}: ResolveModelOptions) {
  return shared;
}

function fromAISDKModel(model: AISDKLanguageModel, options: ResolveModelOptions): LanguageModel {
  if (!isAISDKLanguageModel(model)) {
    throw new RlmError({
      code: 'config.invalid',
      message:
        'resolveModel expects a model id (`provider/model`) or an AI SDK language model object',
      details: { source: 'model', issues: ['model: expected a string id or an AI SDK model'] },
    });
  }
  const { fetch: _fetch, ...shared } = sharedOptions(options);
  return fromAISDK(model, {
    ...shared,
    ...(options.pricing === undefined ? {} : { pricing: options.pricing }),
  });
}

const BUILDERS: Record<ModelProvider, (model: string, context: BuildContext) => LanguageModel> = {
  anthropic: (model, { modelId, options }) => {
    const env = options.env ?? {};
    return anthropic({
      ...sharedOptions(options),
      model,
      apiKey: options.apiKey ?? requireKey(env, { variable: 'ANTHROPIC_API_KEY', modelId }),
      baseURL: options.baseURL ?? nonEmpty(env['ANTHROPIC_BASE_URL']) ?? DEFAULT_ANTHROPIC_BASE_URL,
      ...(options.promptCaching === undefined ? {} : { promptCaching: options.promptCaching }),
      ...(options.thinking === undefined ? {} : { thinking: options.thinking }),
      ...(options.effort === undefined ? {} : { effort: options.effort }),
    });
  },
  openai: (model, { modelId, options }) => {
    const env = options.env ?? {};
    const baseURL = options.baseURL ?? nonEmpty(env['OPENAI_BASE_URL']) ?? DEFAULT_OPENAI_BASE_URL;
    // A key is required only by OpenAI itself; OPENAI_BASE_URL may point at a keyless local server.
    const key =
      options.apiKey ??
      (new URL(baseURL).hostname === 'api.openai.com'
        ? requireKey(env, { variable: 'OPENAI_API_KEY', modelId })
        : nonEmpty(env['OPENAI_API_KEY']));
    return openaiCompatible({
      ...sharedOptions(options),
      provider: 'openai',
      model,
      baseURL,
      ...(key === undefined ? {} : { apiKey: key }),
    });
  },
  openrouter: (model, { modelId, options }) =>
    openaiCompatible({
      ...sharedOptions(options),
      provider: 'openrouter',
      model,
      baseURL: options.baseURL ?? OPENROUTER_BASE_URL,
      apiKey:
        options.apiKey ??
        requireKey(options.env ?? {}, { variable: 'OPENROUTER_API_KEY', modelId }),
    }),
  'openai-compatible': (rest, { modelId, options }) => {
    const env = options.env ?? {};
    const { model, url } = splitEndpoint(rest);
    const baseURL = options.baseURL ?? url ?? nonEmpty(env['OPENAI_BASE_URL']);
    if (baseURL === undefined) {
      throw invalidId(
        modelId,
        'add the server as <model>@http://host:port/v1 or set OPENAI_BASE_URL',
      );
    }
    if (model === '') throw invalidId(modelId, 'the model name before "@" is empty');
    const key = options.apiKey ?? nonEmpty(env['OPENAI_API_KEY']);
    return openaiCompatible({
      ...sharedOptions(options),
      model,
      baseURL,
      ...(key === undefined ? {} : { apiKey: key }),
    });
  },
};

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function requireKey(
  env: Readonly<Record<string, string | undefined>>,
  { variable, modelId }: { variable: string; modelId: string },
): string {
  const key = nonEmpty(env[variable]);
  if (key !== undefined) return key;
  throw missingKeyError({ modelId, variable, hint: LOCAL_HINT });
}

/** Splits `<model>@http(s)://…`; model names may themselves contain `/` or `@`. */
function splitEndpoint(rest: string): { model: string; url: string | undefined } {
  const at = rest.search(/@https?:\/\//);
  return at < 0
    ? { model: rest, url: undefined }
    : { model: rest.slice(0, at), url: rest.slice(at + 1) };
}

function invalidId(modelId: string, problem: string): RlmError {
  return new RlmError({
    code: 'config.invalid',
    message: `Invalid model id "${modelId}": ${problem}`,
    details: { source: 'model id', issues: [problem] },
  });
}
