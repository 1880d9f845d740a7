// A small MCP server over Streamable HTTP on 127.0.0.1 (stateless: one server per request).
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createFixtureServer } from './fixture-tools.mjs';

/** Starts the server on a free port; `requests` records each request's headers. */
export async function startHttpFixture() {
  const requests = [];
  const http = createServer(async (request, response) => {
    requests.push({ method: request.method, headers: request.headers });
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text === '' ? undefined : JSON.parse(text);
    const { server } = createFixtureServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  });
  // The client keeps its connection alive between requests; on a loaded machine a gap between two
  // requests can pass Node's 5 s default, and a socket the server closes just as the client reuses
  // it fails that request with ECONNRESET. The fixture lives for one describe block.
  http.keepAliveTimeout = 120_000;
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
