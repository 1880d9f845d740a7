import { estimateTokens } from '../estimate-tokens.js';
import type { FakeRequestRecord } from './fake-http-server.js';
import {
  contextTooLongMessage,
  errorKindOf,
  modelNotFoundMessage,
  type OpenAIErrorBodyInput,
  type OpenAIFlavor,
} from './openai-error-body.js';
import { type OpenAIChatBody, openAIChatBodySchema, openAIPromptText } from './openai-request.js';

/** The context window of models the fake OpenAI server accepts without a `models` list. */
export const DEFAULT_FAKE_OPENAI_CONTEXT_WINDOW = 128_000;

/** A request that passed validation, or the error body input the server answers with. */
export type OpenAIValidation =
  | { ok: true; body: OpenAIChatBody; promptTokens: number }
  | { ok: false; error: Omit<OpenAIErrorBodyInput, 'flavor'> };

export interface OpenAIValidationOptions {
  flavor: OpenAIFlavor;
  requireAuth: boolean;
  apiKeys: readonly string[] | undefined;
  models: Readonly<Record<string, { contextWindow?: number }>> | undefined;
}

/** Checks route, Bearer key, body shape, model and context window, in that order. */
export function validateOpenAIRequest(
  record: FakeRequestRecord,
  { flavor, requireAuth, apiKeys, models }: OpenAIValidationOptions,
): OpenAIValidation {
  const fail = (status: number, message: string, extra: Partial<OpenAIErrorBodyInput> = {}) => ({
    ok: false as const,
    error: { status, kind: errorKindOf(status), message, ...extra },
  });
  if (record.method !== 'POST' || record.path !== '/v1/chat/completions') {
    return fail(404, `Not found: ${record.method} ${record.path}`);
  }
  const authProblem = checkAuth(record, { requireAuth, apiKeys });
  if (authProblem !== undefined) return fail(401, authProblem);
  const parsed = openAIChatBodySchema.safeParse(record.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(
      400,
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid JSON body'}`,
    );
  }
  const body = parsed.data;
  const known = models === undefined ? {} : models[body.model];
  if (known === undefined) {
    return fail(404, modelNotFoundMessage(flavor, body.model), { kind: 'not_found' });
  }
  const contextWindow = known.contextWindow ?? DEFAULT_FAKE_OPENAI_CONTEXT_WINDOW;
  const promptTokens = estimateTokens(openAIPromptText(body));
  if (promptTokens > contextWindow) {
    const message = contextTooLongMessage(flavor, { promptTokens, contextWindow });
    return fail(400, message, { kind: 'context_too_long', promptTokens, contextWindow });
  }
  return { ok: true, body, promptTokens };
}

/** Why the Bearer key is not acceptable, or `undefined` when it is. */
function checkAuth(
  record: FakeRequestRecord,
  { requireAuth, apiKeys }: Pick<OpenAIValidationOptions, 'requireAuth' | 'apiKeys'>,
): string | undefined {
  const apiKey = /^Bearer\s+(.*)$/i.exec(record.headers['authorization'] ?? '')?.[1]?.trim();
  if ((requireAuth || apiKeys !== undefined) && !apiKey) return 'You did not provide an API key.';
  if (apiKeys !== undefined && (apiKey === undefined || !apiKeys.includes(apiKey))) {
    return 'Incorrect API key provided.';
  }
  return undefined;
}
