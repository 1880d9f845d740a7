/** One server-sent event as a client sees it. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
  /** When the client parsed it (epoch ms). */
  receivedAt: number;
}

/**
 * Parses an SSE response body into messages (comments are counted, not yielded). Works on any
 * chunking of the byte stream: lines are only split on complete `\n`.
 */
export async function* readSse(
  response: Response,
  counters: { comments: number } = { comments: 0 },
): AsyncGenerator<SseMessage> {
  if (response.body === null) return;
  const decoder = new TextDecoder();
  let buffer = '';
  let fields: { id?: string; event?: string; data: string[] } = { data: [] };
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line === '') {
        if (fields.data.length > 0 || fields.event !== undefined) {
          yield {
            id: fields.id,
            event: fields.event ?? 'message',
            data: fields.data.join('\n'),
            receivedAt: Date.now(),
          };
        }
        fields = { data: [] };
        continue;
      }
      if (line.startsWith(':')) {
        counters.comments += 1;
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'data') fields.data.push(value);
      if (name === 'event') fields.event = value;
      if (name === 'id') fields.id = value;
    }
  }
}

/** A promise with its resolve function exposed (Node 20 has no `Promise.withResolvers`). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
