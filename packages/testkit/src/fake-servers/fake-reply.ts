import type { ModelRequest } from '@rlm/protocol';

/** Faults that happen after the response headers, while the body streams. */
export interface FakeStreamFaults {
  /** Text deltas to send, in order; by default the reply text is cut into up to four pieces. */
  chunks?: readonly string[];
  /** Wait this long before every event (SSE) after the first. @default 0 */
  eventDelayMs?: number;
  /** Send a mid-stream error event after this many text deltas (0 = before any text). */
  errorAfterChunks?: number;
  /** Provider error type of that mid-stream error. @default 'overloaded_error' (Anthropic) / 'server_error' (OpenAI) */
  errorType?: string;
  /** Message of that mid-stream error. @default 'Overloaded' */
  errorMessage?: string;
  /** End the body cleanly after this many text deltas, without the closing events. */
  truncateAfterChunks?: number;
  /** Reset the TCP connection after this many text deltas. */
  resetAfterChunks?: number;
}

/**
 * One scripted reply of a fake server. With no `status` (or 200) it is a success carrying `text`;
 * with `status >= 400` it is an error in the provider's wire shape (or the exact `body` given).
 */
export interface FakeReply {
  /** The assistant text of a successful reply. @default '' */
  text?: string;
  /** The provider-native stop reason (`end_turn`, `stop`, `pause_turn`, …); derived from the request when absent. */
  stopReason?: string;
  /**
   * Anthropic only: the thinking text, sent as a `thinking` block (with a signature) before the
   * text when the request turned thinking on; its tokens count in `output_tokens`.
   */
  thinking?: string;
  /**
   * Anthropic only: a refusal. The stop reason becomes `refusal` and `stop_details` carries the
   * category and explanation.
   */
  refusal?: { category?: string | null; explanation?: string | null };
  /**
   * Overrides for the reported token counts. `cacheReadTokens` becomes `cache_read_input_tokens`
   * (Anthropic) or `prompt_tokens_details.cached_tokens` (OpenAI, counted inside `prompt_tokens`).
   * `cost` is reported as OpenRouter does, as `usage.cost` in US dollars (OpenAI shape only).
   */
  usage?: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cost?: number };
  /** HTTP status. @default 200 */
  status?: number;
  /** Error type in the body (`rate_limit_error`, `invalid_request_error`, …); derived from the status when absent. */
  errorType?: string;
  /** Error message in the body. */
  errorMessage?: string;
  /** The exact error body: a string is sent as is, anything else as JSON. */
  body?: unknown;
  /** Extra response headers, e.g. `retry-after-ms`, `x-should-retry`. */
  headers?: Readonly<Record<string, string>>;
  /** The `request-id` (Anthropic) / `x-request-id` (OpenAI) header; generated when absent. */
  requestId?: string;
  /** Wait this long before sending headers (to trigger client timeouts). @default 0 */
  delayMs?: number;
  /** Reset the TCP connection instead of answering. */
  reset?: boolean;
  /** Faults while streaming the body. */
  stream?: FakeStreamFaults;
}

/** The request a script function sees: the normalised model request plus wire details. */
export interface FakeModelRequest extends ModelRequest {
  /** The `model` field of the body. */
  model: string;
  /** Whether the client asked for a streamed response. */
  stream: boolean;
  /** 0-based index among the model requests this server answered. */
  index: number;
  /** Request headers, lower-cased. */
  headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, as sent. */
  body: Readonly<Record<string, unknown>>;
}

/** What a script yields for one request: a reply, or just the reply text. */
export type FakeReplyValue = FakeReply | string;

/** A function script: called for each request (policies are such functions). */
export type FakeReplyFunction = (
  request: FakeModelRequest,
) => FakeReplyValue | Error | Promise<FakeReplyValue | Error>;

/**
 * A server script: one static reply for every request, a queue (array) consumed one reply per
 * request, or a function of the request.
 */
export type FakeScript = FakeReplyValue | readonly FakeReplyValue[] | FakeReplyFunction;

/** Turns a script into a per-request source of replies; `undefined` means the queue is empty. */
export function createReplySource(
  script: FakeScript,
): (request: FakeModelRequest) => Promise<FakeReply | undefined> {
  if (typeof script === 'function') {
    return async (request) => {
      const value = await script(request);
      if (value instanceof Error) {
        return { status: 500, errorMessage: `script threw: ${value.message}`, headers: noRetry };
      }
      return toReply(value);
    };
  }
  if (Array.isArray(script)) {
    const queue = [...(script as readonly FakeReplyValue[])];
    return async () => {
      const next = queue.shift();
      return next === undefined ? undefined : toReply(next);
    };
  }
  const reply = toReply(script as FakeReplyValue);
  return async () => reply;
}

const noRetry = { 'x-should-retry': 'false' } as const;

function toReply(value: FakeReplyValue): FakeReply {
  return typeof value === 'string' ? { text: value } : value;
}

/** The reply served when a queue script has run dry: a loud, non-retryable 500. */
export function exhaustedReply(index: number): FakeReply {
  return {
    status: 500,
    errorMessage: `fake server: no scripted reply left for request #${index + 1}`,
    headers: noRetry,
  };
}

/** Cuts `text` into the deltas a stream sends. */
export function splitIntoChunks(text: string, chunks: readonly string[] | undefined): string[] {
  if (chunks !== undefined) return [...chunks];
  if (text.length === 0) return [];
  const pieces = Math.min(4, text.length);
  const size = Math.ceil(text.length / pieces);
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size)
    result.push(text.slice(start, start + size));
  return result;
}
