import { estimateTokens } from '../estimate-tokens.js';
import { DEFAULT_FAKE_ANTHROPIC_MODELS, type FakeAnthropicModel } from './anthropic-models.js';
import { type CacheAccount, createPromptCache } from './anthropic-prompt-cache.js';
import { type AnthropicMessagesBody, conversationOf } from './anthropic-request.js';
import { validateAnthropicRequest } from './anthropic-validate.js';
import {
  type BodyStep,
  type FakeExchange,
  type FakeRequestRecord,
  sendBody,
  startFakeHttpServer,
} from './fake-http-server.js';
import {
  createReplySource,
  exhaustedReply,
  type FakeModelRequest,
  type FakeReply,
  type FakeScript,
  splitIntoChunks,
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

interface BuiltMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: { type: 'text'; text: string; citations: null }[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    service_tier: 'standard';
  };
}

function buildMessage({
  body,
  reply,
  account,
  id,
}: {
  body: AnthropicMessagesBody;
  reply: FakeReply;
  account: CacheAccount;
  id: string;
}): BuiltMessage {
  const { text, stopReason, stopSequence } = finishText(reply, body);
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content: text === '' ? [] : [{ type: 'text', text, citations: null }],
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    usage: {
      input_tokens: reply.usage?.inputTokens ?? account.inputTokens,
      output_tokens: reply.usage?.outputTokens ?? Math.max(1, estimateTokens(text)),
      cache_creation_input_tokens: account.cacheWrite5mTokens + account.cacheWrite1hTokens,
      cache_read_input_tokens: reply.usage?.cacheReadTokens ?? account.cacheReadTokens,
      cache_creation: {
        ephemeral_5m_input_tokens: account.cacheWrite5mTokens,
        ephemeral_1h_input_tokens: account.cacheWrite1hTokens,
      },
      service_tier: 'standard',
    },
  };
}

/** Applies stop sequences and `max_tokens` to the scripted text, as the real API would. */
function finishText(
  reply: FakeReply,
  body: AnthropicMessagesBody,
): { text: string; stopReason: string; stopSequence: string | null } {
  let text = reply.text ?? '';
  let stopReason = 'end_turn';
  let stopSequence: string | null = null;
  let cut = text.length;
  for (const sequence of body.stop_sequences ?? []) {
    const at = sequence === '' ? -1 : text.indexOf(sequence);
    if (at >= 0 && at < cut) {
      cut = at;
      stopSequence = sequence;
    }
  }
  if (stopSequence !== null) {
    text = text.slice(0, cut);
    stopReason = 'stop_sequence';
  } else if (estimateTokens(text) > body.max_tokens) {
    text = text.slice(0, body.max_tokens * 4);
    stopReason = 'max_tokens';
  }
  return { text, stopReason: reply.stopReason ?? stopReason, stopSequence };
}

function sse(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`;
}

/** The SSE event sequence of a message, with the reply's stream faults applied. */
function streamSteps(message: BuiltMessage, reply: FakeReply): BodyStep[] {
  const faults = reply.stream ?? {};
  const text = message.content[0]?.text ?? '';
  const deltas = splitIntoChunks(text, faults.chunks);
  const { usage } = message;
  const startUsage = {
    input_tokens: usage.input_tokens,
    output_tokens: 1,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: usage.cache_creation,
    service_tier: usage.service_tier,
  };
  const head = [
    sse('message_start', {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    }),
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('ping', {}),
  ];
  const writes: string[] = [...head];
  const steps = (): BodyStep[] =>
    writes.map((write, index) => ({
      write,
      delayMs: index === 0 ? 0 : (faults.eventDelayMs ?? 0),
    }));
  for (let index = 0; index <= deltas.length; index += 1) {
    if (faults.errorAfterChunks === index) {
      writes.push(
        sse('error', {
          error: {
            type: faults.errorType ?? 'overloaded_error',
            message: faults.errorMessage ?? 'Overloaded',
          },
        }),
      );
      return steps();
    }
    if (faults.truncateAfterChunks === index) return steps();
    if (faults.resetAfterChunks === index) return [...steps(), { reset: true }];
    const delta = deltas[index];
    if (delta !== undefined) {
      writes.push(
        sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: delta } }),
      );
    }
  }
  writes.push(
    sse('content_block_stop', { index: 0 }),
    sse('message_delta', {
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: {
        output_tokens: usage.output_tokens,
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
      },
    }),
    sse('message_stop', {}),
  );
  return steps();
}
