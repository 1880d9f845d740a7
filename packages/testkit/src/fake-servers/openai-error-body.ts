/** Which server the fake OpenAI-compatible endpoint imitates (error body shapes differ). */
export type OpenAIFlavor = 'openai' | 'vllm' | 'vllm-legacy' | 'ollama' | 'llamacpp';

/** The kind of failure, from which each flavor derives its own type/code fields. */
export type OpenAIErrorKind =
  | 'bad_request'
  | 'auth'
  | 'not_found'
  | 'context_too_long'
  | 'rate_limit'
  | 'server';

/** The error kind a bare HTTP status implies. */
export function errorKindOf(status: number): OpenAIErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limit';
  if (status >= 500) return 'server';
  return 'bad_request';
}

const OPENAI_FIELDS: Record<OpenAIErrorKind, { type: string; code: string | null }> = {
  bad_request: { type: 'invalid_request_error', code: null },
  auth: { type: 'invalid_request_error', code: 'invalid_api_key' },
  not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  context_too_long: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  rate_limit: { type: 'requests', code: 'rate_limit_exceeded' },
  server: { type: 'server_error', code: null },
};

const VLLM_TYPES: Record<OpenAIErrorKind, string> = {
  bad_request: 'BadRequestError',
  auth: 'Unauthorized',
  not_found: 'NotFoundError',
  context_too_long: 'BadRequestError',
  rate_limit: 'TooManyRequests',
  server: 'InternalServerError',
};

const LLAMACPP_TYPES: Record<OpenAIErrorKind, string> = {
  bad_request: 'invalid_request_error',
  auth: 'authentication_error',
  not_found: 'not_found_error',
  context_too_long: 'exceed_context_size_error',
  rate_limit: 'unavailable_error',
  server: 'server_error',
};

export interface OpenAIErrorBodyInput {
  flavor: OpenAIFlavor;
  status: number;
  kind: OpenAIErrorKind;
  message: string;
  /** For `context_too_long` in llama.cpp's shape. */
  promptTokens?: number;
  contextWindow?: number;
}

/** The error body each server sends, in its own shape. */
export function openAIErrorBody({
  flavor,
  status,
  kind,
  message,
  promptTokens,
  contextWindow,
}: OpenAIErrorBodyInput): Record<string, unknown> {
  switch (flavor) {
    case 'openai':
      return { error: { message, ...OPENAI_FIELDS[kind], param: null } };
    case 'vllm':
      return { error: { message, type: VLLM_TYPES[kind], param: null, code: status } };
    case 'vllm-legacy':
      return { object: 'error', message, type: VLLM_TYPES[kind], param: null, code: status };
    case 'ollama':
      return { error: message };
    case 'llamacpp':
      return {
        error: {
          code: status,
          message,
          type: LLAMACPP_TYPES[kind],
          ...(kind === 'context_too_long'
            ? { n_prompt_tokens: promptTokens, n_ctx: contextWindow }
            : {}),
        },
      };
    default:
      return { error: { message } };
  }
}

/** The message each server uses for a prompt over the context window. */
export function contextTooLongMessage(
  flavor: OpenAIFlavor,
  { promptTokens, contextWindow }: { promptTokens: number; contextWindow: number },
): string {
  if (flavor === 'llamacpp')
    return 'the request exceeds the available context size, try increasing it';
  if (flavor === 'ollama')
    return `prompt too long; exceeded max context length by ${promptTokens - contextWindow} tokens`;
  return `This model's maximum context length is ${contextWindow} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`;
}

/** The message each server uses for an unknown model. */
export function modelNotFoundMessage(flavor: OpenAIFlavor, model: string): string {
  if (flavor === 'ollama') return `model "${model}" not found, try pulling it first`;
  return `The model \`${model}\` does not exist or you do not have access to it.`;
}
