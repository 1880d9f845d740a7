import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { AppEnv } from './app-env.js';

/**
 * `streamSSE` whose failures are ours to report: the error is logged with the request id and the
 * client gets `event: error` naming only the request id (Hono's default would print to the
 * console, or send the raw message).
 */
export function guardedSse(
  c: Context<AppEnv>,
  body: (stream: SSEStreamingApi) => Promise<void>,
): Response {
  // Counted until the stream ends, so a shutdown waits for it (it ends streams it must end).
  const end = c.get('activity')?.begin();
  return streamSSE(c, async (stream) => {
    try {
      await body(stream);
    } catch (error) {
      c.get('log')?.error({ err: error }, 'event stream failed');
      if (!stream.aborted && !stream.closed) {
        await stream
          .writeSSE({
            event: 'error',
            data: JSON.stringify({ code: 'server.internal', requestId: c.get('requestId') }),
          })
          .catch(() => undefined);
      }
    } finally {
      end?.();
    }
  });
}
