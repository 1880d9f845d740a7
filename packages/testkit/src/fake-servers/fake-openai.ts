import { estimateTokens } from '../estimate-tokens.js';
import {
  type BodyStep,
  type FakeExchange,
  type FakeRequestRecord,
  resetConnection,
  sendBody,
  startFakeHttpServer,
  waitBeforeHeaders,
  writeBodySteps,
} from './fake-http-server.js';
import {
  createReplySource,
  exhaustedReply,
  type FakeModelRequest,
  type FakeReply,
  type FakeScript,
  splitIntoChunks,
} from './fake-reply.js';
import {
  contextTooLongMessage,
  errorKindOf,
  modelNotFoundMessage,
  type OpenAIErrorKind,
  type OpenAIFlavor,
  openAIErrorBody,
} from './openai-error-body.js';
import {
  type OpenAIChatBody,
  openAIChatBodySchema,
  openAIConversationOf,
  openAIPromptText,
} from './openai-request.js';

/** The context window of models the fake OpenAI server accepts without a `models` list. */
export const DEFAULT_FAKE_OPENAI_CONTEXT_WINDOW = 128_000;

export interface FakeOpenAIOptions {
  /** How to answer valid requests (see `FakeScript`). @default 'Hello from the fake OpenAI API.' */
  script?: FakeScript;
  /** Which server's error shapes to imitate. @default 'openai' */
  flavor?: OpenAIFlavor;
  /** Known models and their context windows; when given, other models get 404. By default any model is served. */
  models?: Readonly<Record<string, { contextWindow?: number }>>;
  /** Whether a missing Bearer token gets 401 (local servers usually do not check). @default true for 'openai' */
  requireAuth?: boolean;
  /** When set, only these API keys are accepted. */
  apiKeys?: readonly string[];
  /** Clock for arrival times. @default Date.now */
  now?: () => number;
}

/** A running fake of an OpenAI-compatible Chat Completions server. */
export interface FakeOpenAIServer extends AsyncDisposable {
  /** Base URL for the SDK's `baseURL`, ending in `/v1`. */
  readonly url: string;
  readonly requests: readonly FakeRequestRecord[];
  script(script: FakeScript): void;
  close(): Promise<void>;
}

const DEFAULT_TEXT = 'Hello from the fake OpenAI API.';

/**
 * Starts a fake `POST /v1/chat/completions` on 127.0.0.1 with an ephemeral port: JSON replies and
 * `data:`-only SSE with the `include_usage` chunk and `[DONE]`, error bodies shaped like OpenAI,
 * vLLM, Ollama or llama.cpp, and the same scriptable faults as `startFakeAnthropic`.
 *
 * @example
 * await using server = await startFakeOpenAI({ flavor: 'vllm', script: 'hi' });
 * const client = new OpenAI({ apiKey: 'none', baseURL: server.url });
 */
export async function startFakeOpenAI({
  script = DEFAULT_TEXT,
  flavor = 'openai',
  models,
  requireAuth = flavor === 'openai',
  apiKeys,
  now = Date.now,
}: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  let source = createReplySource(script);
  let answered = 0;

  async function handle(exchange: FakeExchange): Promise<void> {
    const { record, response } = exchange;
    const requestId = `req_fake${String(record.index + 1).padStart(6, '0')}`;
    const fail = (status: number, message: string, extra: Partial<FakeFailure> = {}) =>
      sendBody(response, {
        status,
        body: openAIErrorBody({
          flavor,
          status,
          kind: extra.kind ?? errorKindOf(status),
          message,
          ...extra,
        }),
        headers: { 'x-request-id': requestId },
      });

    if (record.method !== 'POST' || record.path !== '/v1/chat/completions') {
      fail(404, `Not found: ${record.method} ${record.path}`);
      return;
    }
    const apiKey = /^Bearer\s+(.*)$/i.exec(record.headers['authorization'] ?? '')?.[1]?.trim();
    if ((requireAuth || apiKeys !== undefined) && !apiKey) {
      fail(401, 'You did not provide an API key.');
      return;
    }
    if (apiKeys !== undefined && (apiKey === undefined || !apiKeys.includes(apiKey))) {
      fail(401, 'Incorrect API key provided.');
      return;
    }
    const parsed = openAIChatBodySchema.safeParse(record.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      fail(400, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid JSON body'}`);
      return;
    }
    const body = parsed.data;
    const known = models === undefined ? {} : models[body.model];
    if (known === undefined) {
      fail(404, modelNotFoundMessage(flavor, body.model), { kind: 'not_found' });
      return;
    }
    const contextWindow = known.contextWindow ?? DEFAULT_FAKE_OPENAI_CONTEXT_WINDOW;
    const promptTokens = estimateTokens(openAIPromptText(body));
    if (promptTokens > contextWindow) {
      const message = contextTooLongMessage(flavor, { promptTokens, contextWindow });
      fail(400, message, { kind: 'context_too_long', promptTokens, contextWindow });
      return;
    }

    const stop = body.stop === undefined || body.stop === null ? undefined : [body.stop].flat();
    const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
    const request: FakeModelRequest = {
      ...openAIConversationOf(body),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(stop === undefined ? {} : { stop }),
      model: body.model,
      stream: body.stream === true,
      index: answered,
      headers: record.headers,
      body: record.body as Record<string, unknown>,
    };
    answered += 1;
    const reply = (await source(request)) ?? exhaustedReply(request.index);
    if (!(await waitBeforeHeaders(exchange, reply.delayMs ?? 0))) return;
    if (reply.reset) {
      resetConnection(response);
      return;
    }
    const headers = { 'x-request-id': reply.requestId ?? requestId, ...reply.headers };
    const status = reply.status ?? 200;
    if (status >= 400) {
      const kind = errorKindOf(status);
      const errorBody =
        reply.body ??
        openAIErrorBody({
          flavor,
          status,
          kind,
          message: reply.errorMessage ?? `scripted ${status}`,
        });
      sendBody(response, { status, body: errorBody, headers });
      return;
    }
    const completion = buildCompletion({
      body,
      reply,
      promptTokens,
      id: `chatcmpl-fake${record.index + 1}`,
      now,
    });
    if (request.stream) {
      response.writeHead(status, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        ...headers,
      });
      await writeBodySteps(
        exchange,
        streamSteps(completion, {
          reply,
          includeUsage: body.stream_options?.include_usage === true,
        }),
      );
    } else {
      sendBody(response, { status, body: completion, headers });
    }
  }

  const server = await startFakeHttpServer({ handle, now });
  return {
    url: `${server.url}/v1`,
    requests: server.requests,
    script(next) {
      source = createReplySource(next);
    },
    close: () => server.close(),
    [Symbol.asyncDispose]: () => server.close(),
  };
}

interface FakeFailure {
  kind: OpenAIErrorKind;
  promptTokens: number;
  contextWindow: number;
}

interface BuiltCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: 0;
    message: { role: 'assistant'; content: string; refusal: null };
    logprobs: null;
    finish_reason: string;
  }[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
  };
}

function buildCompletion({
  body,
  reply,
  promptTokens,
  id,
  now,
}: {
  body: OpenAIChatBody;
  reply: FakeReply;
  promptTokens: number;
  id: string;
  now: () => number;
}): BuiltCompletion {
  let text = reply.text ?? '';
  let finishReason = 'stop';
  const stops = body.stop === undefined || body.stop === null ? [] : [body.stop].flat();
  const cut = Math.min(
    ...stops.map((stop) => (stop === '' ? -1 : text.indexOf(stop))).filter((at) => at >= 0),
  );
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (Number.isFinite(cut)) text = text.slice(0, cut);
  else if (maxTokens !== undefined && maxTokens !== null && estimateTokens(text) > maxTokens) {
    text = text.slice(0, maxTokens * 4);
    finishReason = 'length';
  }
  const prompt = reply.usage?.inputTokens ?? promptTokens;
  const completion = reply.usage?.outputTokens ?? Math.max(1, estimateTokens(text));
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(now() / 1000),
    model: body.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null },
        logprobs: null,
        finish_reason: reply.stopReason ?? finishReason,
      },
    ],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      ...(reply.usage?.cacheReadTokens === undefined
        ? {}
        : { prompt_tokens_details: { cached_tokens: reply.usage.cacheReadTokens } }),
    },
  };
}

/** The `data:`-only chunk sequence, with the reply's stream faults applied. */
function streamSteps(
  completion: BuiltCompletion,
  { reply, includeUsage }: { reply: FakeReply; includeUsage: boolean },
): BodyStep[] {
  const faults = reply.stream ?? {};
  const choice = completion.choices[0]!;
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
    `data: ${JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    })}\n\n`;
  const writes = [chunk({ role: 'assistant', content: '' }, null)];
  const steps = (): BodyStep[] =>
    writes.map((write, index) => ({
      write,
      delayMs: index === 0 ? 0 : (faults.eventDelayMs ?? 0),
    }));
  const deltas = splitIntoChunks(choice.message.content, faults.chunks);
  for (let index = 0; index <= deltas.length; index += 1) {
    if (faults.errorAfterChunks === index) {
      const error = {
        message: faults.errorMessage ?? 'The server had an error while processing your request.',
        type: faults.errorType ?? 'server_error',
        code: null,
      };
      writes.push(`data: ${JSON.stringify({ error })}\n\n`);
      return steps();
    }
    if (faults.truncateAfterChunks === index) return steps();
    if (faults.resetAfterChunks === index) return [...steps(), { reset: true }];
    const delta = deltas[index];
    if (delta !== undefined) writes.push(chunk({ content: delta }, null));
  }
  writes.push(chunk({}, choice.finish_reason));
  if (includeUsage) {
    writes.push(`data: ${JSON.stringify({ ...base, choices: [], usage: completion.usage })}\n\n`);
  }
  writes.push('data: [DONE]\n\n');
  return steps();
}
