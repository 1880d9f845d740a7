import { buildMessage, streamSteps } from './anthropic-message.js';
import { DEFAULT_FAKE_ANTHROPIC_MODELS, type FakeAnthropicModel } from './anthropic-models.js';
import { createPromptCache } from './anthropic-prompt-cache.js';
import { type AnthropicMessagesBody, conversationOf } from './anthropic-request.js';
import { validateAnthropicRequest } from './anthropic-validate.js';
import {
  type FakeExchange,
  type FakeRequestRecord,
  sendBody,
  startFakeHttpServer,
} from './fake-http-server.js';
import {
  createReplySource,
  exhaustedReply,
  type FakeModelRequest,
  type FakeScript,
} from './fake-reply.js';
import { serveReply } from './serve-reply.js';

export interface FakeAnthropicOptions {
  /** How to answer valid requests (see `FakeScript`). @default 'Hello from the fake Anthropic API.' */
  script?: FakeScript;
  /** Extra or overriding models; unknown models get 404. Merged over `DEFAULT_FAKE_ANTHROPIC_MODELS`. */
  models?: Readonly<Record<string, Partial<FakeAnthropicModel>>>;
  /** When set, only these API keys are accepted (others get 401); by default any key is. */
  apiKeys?: readonly string[];
  /** Clock for arrival times and cache TTLs. @default Date.now */
  now?: () => number;
}

/** A running fake of the Anthropic Messages API. */
export interface FakeAnthropicServer extends AsyncDisposable {
  /** Base URL for the SDK's `baseURL` (no `/v1`: the SDK appends `/v1/messages`). */
  readonly url: string;
  /** Every request, in arrival order, with headers, body and arrival time. */
  readonly requests: readonly FakeRequestRecord[];
  /** Replaces the script; a queue script starts fresh. */
  script(script: FakeScript): void;
  /** Forgets every prompt-cache entry. */
  clearCache(): void;
  /** Closes the server and every connection. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_TEXT = 'Hello from the fake Anthropic API.';

/**
 * Starts a wire-faithful fake of `POST /v1/messages` and `/v1/messages/count_tokens` on
 * 127.0.0.1 with an ephemeral port: JSON and SSE replies with the real event sequence, both auth
 * styles, request validation, prompt-cache accounting and scriptable faults.
 *
 * @example
 * await using server = await startFakeAnthropic({ script: ['first reply', { status: 529 }] });
 * const client = new Anthropic({ apiKey: 'sk-test', baseURL: server.url });
 */
export async function startFakeAnthropic({
  script = DEFAULT_TEXT,
  models = {},
  apiKeys,
  now = Date.now,
}: FakeAnthropicOptions = {}): Promise<FakeAnthropicServer> {
  let source = createReplySource(script);
  let answered = 0;
  const cache = createPromptCache({ now });
  const knownModels: Record<string, FakeAnthropicModel> = { ...DEFAULT_FAKE_ANTHROPIC_MODELS };
  for (const [name, spec] of Object.entries(models)) {
    knownModels[name] = {
      contextWindow: 200_000,
      cacheMinTokens: 1024,
      ...knownModels[name],
      ...spec,
    };
  }

  async function handle(exchange: FakeExchange): Promise<void> {
    const { record, response } = exchange;
    const requestId = `req_fake${String(record.index + 1).padStart(6, '0')}`;
    const fail = (status: number, message: string) =>
      sendBody(response, {
        status,
        body: errorBody({ status, message, requestId }),
        headers: { 'request-id': requestId },
      });

    const checked = validateAnthropicRequest(record, { apiKeys, models: knownModels });
    if (!checked.ok) {
      fail(checked.status, checked.message);
      return;
    }
    const { isCount, body, blocks, model, promptTokens } = checked;
    if (isCount) {
      sendBody(response, {
        status: 200,
        body: { input_tokens: promptTokens },
        headers: { 'request-id': requestId },
      });
      return;
    }

    const full = body as AnthropicMessagesBody;
    const request: FakeModelRequest = {
      ...conversationOf(full),
      maxTokens: full.max_tokens,
      ...(full.stop_sequences === undefined ? {} : { stop: full.stop_sequences }),
      model: full.model,
      stream: full.stream === true,
      index: answered,
      headers: record.headers,
      body: record.body as Record<string, unknown>,
    };
    answered += 1;
    const reply = (await source(request)) ?? exhaustedReply(request.index);
    await serveReply(exchange, {
      reply,
      rendering: {
        requestId,
        requestIdHeader: 'request-id',
        stream: request.stream,
        errorBody: (status) =>
          errorBody({ status, type: reply.errorType, message: reply.errorMessage, requestId }),
        success: () => {
          const account = cache.account({
            model: full.model,
            blocks,
            minTokens: model.cacheMinTokens,
          });
          const message = buildMessage({
            body: full,
            reply,
            account,
            id: `msg_fake${record.index + 1}`,
          });
          return { json: message, events: () => streamSteps(message, reply) };
        },
      },
    });
  }

  const server = await startFakeHttpServer({ handle, now });
  return {
    url: server.url,
    requests: server.requests,
    script(next) {
      source = createReplySource(next);
    },
    clearCache: () => cache.clear(),
    close: () => server.close(),
    [Symbol.asyncDispose]: () => server.close(),
  };
}

const ERROR_TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** The Anthropic error body for a status (`{type:'error', error:{type, message}, request_id}`). */
export function anthropicErrorBody({
  status,
  type,
  message,
  requestId,
}: {
  status: number;
  type?: string | undefined;
  message?: string | undefined;
  requestId: string;
}): Record<string, unknown> {
  const errorType =
    type ?? ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return {
    type: 'error',
    error: { type: errorType, message: message ?? defaultMessage(errorType) },
    request_id: requestId,
  };
}
const errorBody = anthropicErrorBody;

function defaultMessage(type: string): string {
  if (type === 'overloaded_error') return 'Overloaded';
  if (type === 'rate_limit_error') return 'Rate limited: too many requests';
  return type.replaceAll('_', ' ');
}
