import {
  type BodyStep,
  type FakeExchange,
  resetConnection,
  sendBody,
  waitBeforeHeaders,
  writeBodySteps,
} from './fake-http-server.js';
import type { FakeReply } from './fake-reply.js';

/** How one provider renders a scripted reply. */
export interface ReplyRendering {
  /** The generated request id and the header that carries it. */
  requestId: string;
  requestIdHeader: 'request-id' | 'x-request-id';
  /** Whether the client asked for SSE. */
  stream: boolean;
  /** The provider's error body for a failing reply (used when the reply gives no `body`). */
  errorBody(status: number): unknown;
  /** The success body, built only when the reply succeeds (so cache accounting happens once). */
  success(): { json: unknown; events: () => BodyStep[] };
}

/**
 * Serves a scripted reply with its faults, the same way for every provider: the delay before
 * headers, a reset, an error status with the provider's body, or success as JSON or SSE (a JSON
 * body is cut in half before the reset when `stream.resetAfterChunks` is set).
 */
export async function serveReply(
  exchange: FakeExchange,
  { reply, rendering }: { reply: FakeReply; rendering: ReplyRendering },
): Promise<void> {
  const { response } = exchange;
  if (!(await waitBeforeHeaders(exchange, reply.delayMs ?? 0))) return;
  if (reply.reset) {
    resetConnection(response);
    return;
  }
  const headers = {
    [rendering.requestIdHeader]: reply.requestId ?? rendering.requestId,
    ...reply.headers,
  };
  const status = reply.status ?? 200;
  if (status >= 400) {
    sendBody(response, { status, body: reply.body ?? rendering.errorBody(status), headers });
    return;
  }
  const { json, events } = rendering.success();
  if (rendering.stream) {
    response.writeHead(status, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...headers,
    });
    await writeBodySteps(exchange, events());
  } else if (reply.stream?.resetAfterChunks !== undefined) {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    const text = JSON.stringify(json);
    await writeBodySteps(exchange, [{ write: text.slice(0, text.length / 2) }, { reset: true }]);
  } else {
    sendBody(response, { status, body: json, headers });
  }
}
