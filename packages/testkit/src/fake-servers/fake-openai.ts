import { estimateTokens } from '../estimate-tokens.js';
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
import { errorKindOf, type OpenAIFlavor, openAIErrorBody } from './openai-error-body.js';
import { createPrefixCache } from './openai-prefix-cache.js';
import { type OpenAIChatBody, openAIConversationOf, openAIPromptText } from './openai-request.js';
import { validateOpenAIRequest } from './openai-validate.js';
import { serveReply } from './serve-reply.js';

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
  /**
   * Simulate automatic prefix caching and report `prompt_tokens_details.cached_tokens`.
   * @default true for 'openai', false for local servers
   */
  promptCaching?: boolean;
  /** Clock for arrival times and cache expiry. @default Date.now */
  now?: () => number;
}

/** A running fake of an OpenAI-compatible Chat Completions server. */
export interface FakeOpenAIServer extends AsyncDisposable {
  /** Base URL for the SDK's `baseURL`, ending in `/v1`. */
  readonly url: string;
  readonly requests: readonly FakeRequestRecord[];
  script(script: FakeScript): void;
  /** Forgets every cached prefix. */
  clearCache(): void;
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
  promptCaching = flavor === 'openai',
  now = Date.now,
}: FakeOpenAIOptions = {}): Promise<FakeOpenAIServer> {
  let source = createReplySource(script);
  let answered = 0;
  const prefixCache = createPrefixCache({ now });

  async function handle(exchange: FakeExchange): Promise<void> {
    const { record, response } = exchange;
    const requestId = `req_fake${String(record.index + 1).padStart(6, '0')}`;
    const checked = validateOpenAIRequest(record, { flavor, requireAuth, apiKeys, models });
    if (!checked.ok) {
      sendBody(response, {
        status: checked.error.status,
        body: openAIErrorBody({ flavor, ...checked.error }),
        headers: { 'x-request-id': requestId },
      });
      return;
    }
    const { body, promptTokens } = checked;
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
    await serveReply(exchange, {
      reply,
      rendering: {
        requestId,
        requestIdHeader: 'x-request-id',
        stream: request.stream,
        errorBody: (status) =>
          openAIErrorBody({
            flavor,
            status,
            kind: errorKindOf(status),
            message: reply.errorMessage ?? `scripted ${status}`,
          }),
        success: () => {
          const id = `chatcmpl-fake${record.index + 1}`;
          const cachedTokens = promptCaching
            ? prefixCache.cachedTokens({ model: body.model, prompt: openAIPromptText(body) })
            : undefined;
          const completion = buildCompletion({ body, reply, promptTokens, cachedTokens, id, now });
          const includeUsage = body.stream_options?.include_usage === true;
          return {
            json: completion,
            events: () => streamSteps(completion, { reply, includeUsage }),
          };
        },
      },
    });
  }

  const server = await startFakeHttpServer({ handle, now });
  return {
    url: `${server.url}/v1`,
    requests: server.requests,
    script(next) {
      source = createReplySource(next);
    },
    clearCache: () => prefixCache.clear(),
    close: () => server.close(),
    [Symbol.asyncDispose]: () => server.close(),
  };
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
    cost?: number;
  };
}

function buildCompletion({
  body,
  reply,
  promptTokens,
  cachedTokens,
  id,
  now,
}: {
  body: OpenAIChatBody;
  reply: FakeReply;
  promptTokens: number;
  /** Tokens served from the prefix cache; `undefined` when the server does not report caching. */
  cachedTokens: number | undefined;
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
  const cached = reply.usage?.cacheReadTokens ?? cachedTokens;
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
      ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
      ...(reply.usage?.cost === undefined ? {} : { cost: reply.usage.cost }),
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
