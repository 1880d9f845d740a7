import type { ZodType } from 'zod';
import type { FakeAnthropicModel } from './anthropic-models.js';
import type { CacheBlock } from './anthropic-prompt-cache.js';
import {
  type AnthropicMessagesBody,
  type AnthropicPromptBody,
  anthropicMessagesBodySchema,
  anthropicPromptBodySchema,
  cacheBlocksOf,
  REMOVED_SAMPLING_PARAMETERS,
} from './anthropic-request.js';
import type { FakeRequestRecord } from './fake-http-server.js';

/** The API version SDK 1.x sends, which removed the sampling parameters. */
export const ANTHROPIC_VERSION_2026 = '2026-10-21';
/** The API version SDK 0.x sends. */
export const ANTHROPIC_VERSION_2023 = '2023-06-01';
/** Most breakpoints (`cache_control` blocks) one request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** A request that passed validation, or the error the API would answer. */
export type AnthropicValidation =
  | {
      ok: true;
      isCount: boolean;
      body: AnthropicPromptBody;
      blocks: CacheBlock[];
      model: FakeAnthropicModel;
      promptTokens: number;
    }
  | { ok: false; status: number; message: string };

/**
 * Checks a request in the order the API does what matters to clients: route, auth, version
 * header, body shape, removed sampling parameters, empty messages, thinking and effort settings,
 * breakpoint count, model, context window.
 */
export function validateAnthropicRequest(
  record: FakeRequestRecord,
  {
    apiKeys,
    models,
  }: {
    apiKeys: readonly string[] | undefined;
    models: Readonly<Record<string, FakeAnthropicModel>>;
  },
): AnthropicValidation {
  const fail = (status: number, message: string) => ({ ok: false as const, status, message });
  const isCount = record.path === '/v1/messages/count_tokens';
  if (record.method !== 'POST' || (record.path !== '/v1/messages' && !isCount)) {
    return fail(404, `Not found: ${record.method} ${record.path}`);
  }
  const headers = checkHeaders(record, apiKeys);
  if (!headers.ok) return headers;
  const version = headers.version;
  const schema: ZodType<AnthropicPromptBody> = isCount
    ? anthropicPromptBodySchema
    : anthropicMessagesBodySchema;
  const parsed = schema.safeParse(record.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(
      400,
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid JSON body'}`,
    );
  }
  const body = parsed.data;
  const removed = REMOVED_SAMPLING_PARAMETERS.find((name) => name in body);
  if (version >= ANTHROPIC_VERSION_2026 && removed !== undefined) {
    return fail(400, `${removed}: Extra inputs are not permitted`);
  }
  const problem = contentProblem(body, isCount);
  if (problem !== undefined) return fail(400, problem);
  const { blocks, breakpointCount } = cacheBlocksOf(body);
  if (breakpointCount > MAX_CACHE_BREAKPOINTS) {
    return fail(
      400,
      `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpointCount}.`,
    );
  }
  const model = models[body.model];
  if (model === undefined) return fail(404, `model: ${body.model}`);
  const promptTokens = blocks.reduce((sum, block) => sum + block.tokens, 0);
  if (promptTokens > model.contextWindow) {
    return fail(400, `prompt is too long: ${promptTokens} tokens > ${model.contextWindow} maximum`);
  }
  return { ok: true, isCount, body, blocks, model, promptTokens };
}

/** Auth and version headers: 401 without a key (or with one outside `apiKeys`), 400 without a version. */
function checkHeaders(
  record: FakeRequestRecord,
  apiKeys: readonly string[] | undefined,
): { ok: true; version: string } | { ok: false; status: number; message: string } {
  const apiKey = record.headers['x-api-key'] ?? bearerToken(record.headers['authorization']);
  if (apiKey === undefined || apiKey === '') {
    return {
      ok: false,
      status: 401,
      message: 'No API key: send x-api-key or Authorization: Bearer',
    };
  }
  if (apiKeys !== undefined && !apiKeys.includes(apiKey)) {
    return { ok: false, status: 401, message: 'invalid x-api-key' };
  }
  const version = record.headers['anthropic-version'];
  if (version === undefined) {
    return { ok: false, status: 400, message: 'anthropic-version: header is required' };
  }
  return { ok: true, version };
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(.*)$/i.exec(header);
  return match?.[1]?.trim();
}

/** What the API refuses in the messages, thinking and effort settings of a valid-shaped body. */
function contentProblem(body: AnthropicPromptBody, isCount: boolean): string | undefined {
  return (
    emptyMessageProblem(body) ??
    (isCount ? undefined : thinkingProblem(body as AnthropicMessagesBody)) ??
    effortProblem(body)
  );
}

/** The `output_config.effort` values the API accepts. */
const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
/** The smallest `thinking.budget_tokens` the API accepts. */
const MIN_THINKING_BUDGET = 1024;

/**
 * The API refuses a message with no content, or with only blank text, anywhere but as the final
 * assistant turn (a prefill).
 */
function emptyMessageProblem(body: AnthropicPromptBody): string | undefined {
  const last = body.messages.length - 1;
  for (const [index, message] of body.messages.entries()) {
    if (index === last && message.role === 'assistant') continue;
    const content = message.content;
    const blank =
      typeof content === 'string'
        ? content.trim() === ''
        : content.length === 0 ||
          content.every(
            (block) =>
              block.type === 'text' &&
              String((block as { text?: unknown }).text ?? '').trim() === '',
          );
    if (blank) {
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    }
  }
  return undefined;
}

/** `thinking` must be enabled with 1024 ≤ budget_tokens < max_tokens, adaptive, or disabled. */
function thinkingProblem(body: AnthropicMessagesBody): string | undefined {
  const thinking = (body as { thinking?: unknown }).thinking;
  if (thinking === undefined) return undefined;
  const { type, budget_tokens: budget } = thinking as { type?: unknown; budget_tokens?: unknown };
  if (type === 'adaptive' || type === 'disabled') return undefined;
  if (type !== 'enabled') return `thinking.type: expected 'enabled', 'adaptive' or 'disabled'`;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < MIN_THINKING_BUDGET) {
    return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`;
  }
  if (budget >= body.max_tokens) {
    return '`max_tokens` must be greater than `thinking.budget_tokens`';
  }
  return undefined;
}

function effortProblem(body: AnthropicPromptBody): string | undefined {
  const config = (body as { output_config?: { effort?: unknown } }).output_config;
  const effort = config?.effort;
  if (effort === undefined || effort === null) return undefined;
  return typeof effort === 'string' && EFFORTS.includes(effort)
    ? undefined
    : `output_config.effort: Input should be ${EFFORTS.map((value) => `'${value}'`).join(', ')}`;
}
