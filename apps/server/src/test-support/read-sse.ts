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
  const parser = createSseParser(counters);
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    yield* parser.push(decoder.decode(chunk, { stream: true }));
  }
}

function applyField(fields: { id?: string; event?: string; data: string[] }, text: string): void {
  const colon = text.indexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
  if (name === 'data') fields.data.push(value);
  if (name === 'event') fields.event = value;
  if (name === 'id') fields.id = value;
}

/** Line-level SSE parsing, fed text in any chunking. */
function createSseParser(counters: { comments: number }) {
  let buffer = '';
  let fields: { id?: string; event?: string; data: string[] } = { data: [] };
  function line(text: string): SseMessage | undefined {
    if (text === '') {
      const done = fields;
      fields = { data: [] };
      if (done.data.length === 0 && done.event === undefined) return undefined;
      return {
        id: done.id,
        event: done.event ?? 'message',
        data: done.data.join('\n'),
        receivedAt: Date.now(),
      };
    }
    if (text.startsWith(':')) {
      counters.comments += 1;
      return undefined;
    }
    applyField(fields, text);
    return undefined;
  }
  return {
    *push(text: string): Generator<SseMessage> {
      buffer += text;
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const message = line(buffer.slice(0, newline).replace(/\r$/, ''));
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (message !== undefined) yield message;
      }
    },
  };
}

/** A promise with its resolve function exposed (Node 20 has no `Promise.withResolvers`). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
