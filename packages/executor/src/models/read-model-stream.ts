import type { RlmError } from '@rlm/protocol';
import { abortedError, networkError, timeoutError } from './model-error.js';

interface ConsumeStreamOptions<TEvent> {
  /** Aborting this ends the request: the idle timer aborts it when events stop coming. */
  idle: AbortController;
  /** The longest gap between two events. */
  idleMs: number;
  onEvent: (event: TEvent) => void;
}

/**
 * Iterates a stream, handing each event to `onEvent`, and aborts `idle` when no event arrives
 * for `idleMs`. SDK timeouts stop at the response headers, so without this a stalled stream
 * would hang forever. The timer is cleared however the iteration ends.
 */
async function consumeStream<TEvent>(
  stream: AsyncIterable<TEvent>,
  { idleMs, idle, onEvent }: ConsumeStreamOptions<TEvent>,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  try {
    arm();
    for await (const event of stream) {
      arm();
      onEvent(event);
    }
  } finally {
    clearTimeout(timer);
  }
}

export interface ReadModelStreamOptions<TEvent> extends ConsumeStreamOptions<TEvent> {
  modelId: string;
  /** The caller's signal: its abort is `model.aborted`, whatever the SDK did. */
  signal: AbortSignal | undefined;
  /** Maps an SDK or transport error to an `RlmError`. */
  toError: (error: unknown) => RlmError;
  /** Whether the closing event arrived (`message_stop`, a `finish_reason`). */
  isComplete: () => boolean;
  /** What is missing when the stream ends early, for the `model.network` message. */
  missing: string;
}

/**
 * Consumes a model's stream and explains how it ended: the caller's abort, the idle timeout,
 * an SDK error, or a stream that ended without its closing event (SDKs end iteration quietly on
 * abort and, for OpenAI, on a missing `[DONE]`).
 *
 * @throws RlmError `model.aborted`, `model.timeout`, `model.network`, or whatever `toError` gives.
 */
export async function readModelStream<TEvent>(
  stream: AsyncIterable<TEvent>,
  options: ReadModelStreamOptions<TEvent>,
): Promise<void> {
  const { modelId, idle, idleMs, signal, toError } = options;
  try {
    await consumeStream(stream, options);
  } catch (error) {
    if (idle.signal.aborted && !signal?.aborted) throw timeoutError(modelId, idleMs, error);
    throw toError(error);
  }
  if (signal?.aborted) throw abortedError(modelId, signal);
  if (idle.signal.aborted) throw timeoutError(modelId, idleMs);
  if (!options.isComplete())
    throw networkError(modelId, `the stream ended before ${options.missing}`);
}
