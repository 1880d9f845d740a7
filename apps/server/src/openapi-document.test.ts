import { describe, expect, it } from 'vitest';
import { OPERATIONS } from './api-operations.js';
import { createServer } from './create-server.js';
import type { RunEngine } from './run-engine.js';
import { startTestServer } from './test-support/start-test-server.js';

const idleEngine: RunEngine = { run: () => Promise.reject(new Error('not used')) };

describe('/openapi.json', () => {
  it('documents every route the app serves, and only those', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const app = createServer(server.services);
    const served = new Set(
      app.routes
        .filter((route) => ['GET', 'POST', 'PUT', 'DELETE'].includes(route.method))
        .filter((route) => !route.path.startsWith('/ui/assets'))
        .map(
          (route) =>
            `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '')}`,
        ),
    );
    const documented = new Set(
      OPERATIONS.map((operation) => `${operation.method} ${operation.path}`),
    );
    expect([...served].sort()).toEqual([...documented].sort());
  });

  it('is served without a key, with component schemas generated from zod', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const response = await server.request('/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      components: {
        schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
      };
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.schemas['CreateRunRequest']?.required).toEqual(['query']);
    expect(Object.keys(document.components.schemas['Run']?.properties ?? {})).toContain('answer');
    expect(JSON.stringify(document)).not.toContain('"$ref":"#/$defs');
  });

  it('documents /v1/responses with its request and Response schemas', async () => {
    await using server = await startTestServer({ engine: idleEngine });
    const document = (await (await server.request('/openapi.json', { key: null })).json()) as {
      components: { schemas: Record<string, { required?: string[] }> };
      paths: Record<string, { post?: { requestBody: unknown; responses: unknown } }>;
    };
    const post = document.paths['/v1/responses']?.post;
    expect(JSON.stringify(post?.requestBody)).toContain('#/components/schemas/ResponsesRequest');
    expect(JSON.stringify(post?.responses)).toContain('#/components/schemas/Response"');
    expect(document.components.schemas['ResponsesRequest']?.required).toEqual(['model', 'input']);
    expect(document.components.schemas['Response']?.required).toContain('output');
  });
});
