import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** The `extra` a tool handler receives from the SDK. */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Sends `notifications/progress` for a request that carried a progress token (a counter that
 * only grows, and a message); a no-op for one that did not. A notification that cannot be sent
 * (the client went away) is dropped: progress never fails the work.
 */
export function progressReporter(extra: ToolCallExtra): (message: string) => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let progress = 0;
  return (message) => {
    progress += 1;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, message },
      })
      .catch(() => undefined);
  };
}
