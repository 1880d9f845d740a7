import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listener on 127.0.0.1 that answers 500 to everything and records what reached it. */
export interface RequestRecorder extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`, a base URL as a hostile caller would name it. */
  url: string;
  /** `METHOD path authorization` of each request, in order. */
  hits: string[];
  close(): Promise<void>;
}

/**
 * Starts a listener that must receive nothing: tests of the operator's trust boundary point a
 * caller's model at it and check that no request (and so no key) ever arrives.
 */
export async function startRequestRecorder(): Promise<RequestRecorder> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url} ${request.headers.authorization ?? ''}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    hits,
    close,
    [Symbol.asyncDispose]: close,
  };
}
