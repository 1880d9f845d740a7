import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sleep } from '../sleep.js';

/** One request as the fake server received it, for asserting retries, backoff and headers. */
export interface FakeRequestRecord {
  /** 0-based arrival order. */
  index: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Request headers, lower-cased; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  rawBody: string;
  /** The JSON-parsed body, or `undefined` when it was not JSON. */
  body: unknown;
  /** Arrival time in milliseconds, from the server's clock (`Date.now` unless injected). */
  arrivedAt: number;
  /** The SDK's `x-stainless-retry-count` header as a number (0 on first attempts), if sent. */
  retryCount: number | undefined;
  /** The status the server answered with; `undefined` for resets and unanswered requests. */
  status: number | undefined;
}

/** What a provider handler gets for each request. */
export interface FakeExchange {
  record: FakeRequestRecord;
  response: ServerResponse;
  /** Aborts when the client disconnects or the server closes, so waits never outlive the test. */
  signal: AbortSignal;
}

/** One step of a response body: a write, optionally preceded by a delay, or a connection reset. */
export type BodyStep = { write: string; delayMs?: number } | { reset: true; delayMs?: number };

export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly requests: readonly FakeRequestRecord[];
  /** Stops accepting connections, destroys open ones and cancels pending waits. Idempotent. */
  close(): Promise<void>;
}

export interface FakeHttpServerOptions {
  handle: (exchange: FakeExchange) => Promise<void>;
  /** The clock used for `arrivedAt`. @default Date.now */
  now?: () => number;
}

/** Starts a node:http server on 127.0.0.1 with an ephemeral port that logs every request. */
export async function startFakeHttpServer({
  handle,
  now = Date.now,
}: FakeHttpServerOptions): Promise<FakeHttpServer> {
  const requests: FakeRequestRecord[] = [];
  const sockets = new Set<Socket>();
  const closing = new AbortController();
  // One listener per in-flight request: a batch of sub-calls easily exceeds the default of 10.
  setMaxListeners(0, closing.signal);
  const server = createServer((request, response) => {
    const arrivedAt = now();
    const exchangeAbort = new AbortController();
    const onClosing = () => exchangeAbort.abort();
    closing.signal.addEventListener('abort', onClosing, { once: true });
    response.on('close', () => {
      closing.signal.removeEventListener('abort', onClosing);
      if (!response.writableFinished) exchangeAbort.abort();
    });
    void serve({ request, response, arrivedAt, signal: exchangeAbort.signal });
  });

  async function serve({
    request,
    response,
    arrivedAt,
    signal,
  }: {
    request: IncomingMessage;
    response: ServerResponse;
    arrivedAt: number;
    signal: AbortSignal;
  }): Promise<void> {
    let record: FakeRequestRecord;
    try {
      record = await readRecord(request, { index: requests.length, arrivedAt });
    } catch {
      // The client went away while sending its body: nothing to answer.
      response.destroy();
      return;
    }
    requests.push(record);
    response.on('finish', () => {
      record.status = response.statusCode;
    });
    try {
      await handle({ record, response, signal });
    } catch (error) {
      if (signal.aborted) return;
      if (!response.headersSent) {
        const message = error instanceof Error ? error.message : String(error);
        response.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
        response.end(JSON.stringify({ error: { type: 'fake_server_error', message } }));
      } else {
        response.destroy();
      }
    }
  }

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}

async function readRecord(
  request: IncomingMessage,
  { index, arrivedAt }: { index: number; arrivedAt: number },
): Promise<FakeRequestRecord> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const retryHeader = headers['x-stainless-retry-count'];
  return {
    index,
    method: request.method ?? 'GET',
    path: (request.url ?? '/').split('?')[0] ?? '/',
    headers,
    rawBody,
    body: parseJsonOrUndefined(rawBody),
    arrivedAt,
    retryCount: retryHeader === undefined ? undefined : Number(retryHeader),
    status: undefined,
  };
}

function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sends a complete response with a JSON (object) or raw (string) body. */
export function sendBody(
  response: ServerResponse,
  { status, body, headers }: { status: number; body: unknown; headers: Record<string, string> },
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain' : 'application/json';
  response.writeHead(status, { 'content-type': contentType, ...headers });
  response.end(text);
}

/** Resets the connection (TCP RST where the platform allows), as a crashed proxy would. */
export function resetConnection(response: ServerResponse): void {
  const socket = response.socket;
  if (socket === null) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** Writes body steps in order with their delays; stops quietly when the client goes away. */
export async function writeBodySteps(
  exchange: FakeExchange,
  steps: readonly BodyStep[],
): Promise<void> {
  const { response, signal } = exchange;
  for (const step of steps) {
    if (step.delayMs !== undefined && step.delayMs > 0) {
      try {
        await sleep(step.delayMs, { signal });
      } catch {
        return;
      }
    }
    if (signal.aborted) return;
    if ('reset' in step) {
      // Destroy (not RST) once earlier writes are flushed: an RST would let the peer's kernel
      // discard bytes it has not read yet, turning a mid-body failure into a pre-header one.
      response.socket?.destroy();
      return;
    }
    await new Promise<void>((resolve) => response.write(step.write, () => resolve()));
  }
  response.end();
}

/** Waits before headers; returns false when the exchange was aborted meanwhile. */
export async function waitBeforeHeaders(exchange: FakeExchange, delayMs: number): Promise<boolean> {
  if (delayMs <= 0) return true;
  try {
    await sleep(delayMs, { signal: exchange.signal });
    return true;
  } catch {
    return false;
  }
}
