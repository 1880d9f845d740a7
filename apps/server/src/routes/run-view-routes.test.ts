import { scriptedModel } from '@rlm/testkit';
import { parseTrajectory, renderRunHtml, TraceTree, trajectoryEvents } from '@rlm/trace';
import { describe, expect, it } from 'vitest';
import { createExecutorEngine } from '../executor-engine.js';
import { readSse } from '../test-support/read-sse.js';
import { scriptedEngine } from '../test-support/scripted-engine.js';
import { startTestServer, type TestServer } from '../test-support/start-test-server.js';

async function runToEnd(server: TestServer, body: object): Promise<{ id: string; lastId: string }> {
  const created = await server.request('/v1/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const { id } = (await created.json()) as { id: string };
  let lastId = '0';
  for await (const message of readSse(await server.request(`/v1/runs/${id}/events`))) {
    if (message.event === 'end') break;
    lastId = message.id ?? lastId;
  }
  return { id, lastId };
}

/** What `rlm trace --html` renders for a trajectory: its event records through the shared view. */
function cliFragment(jsonl: string): string {
  const tree = new TraceTree();
  for (const event of trajectoryEvents(parseTrajectory(jsonl))) tree.apply(event);
  return renderRunHtml(tree);
}

describe('GET /v1/runs/:id/view', () => {
  it('serves the trace view that rlm trace --html renders for the same run', async () => {
    const model = scriptedModel((request) => {
      if (request.system === undefined) return 'a short greeting';
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      return turn === 0
        ? '```repl\nconst kind = await llm_query("Classify: " + context)\nprint(kind)\n```'
        : 'FINAL_VAR(kind)';
    });
    await using server = await startTestServer({
      engine: createExecutorEngine({ resolveModel: () => model, isolation: 'inline' }),
    });
    const { id, lastId } = await runToEnd(server, { query: 'Kind?', context: 'hello there' });
    const view = await server.request(`/v1/runs/${id}/view`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(view.headers.get('x-last-event-id')).toBe(lastId);
    expect(view.headers.get('x-run-status')).toBe('completed');
    const html = await view.text();
    const trajectory = await (await server.request(`/v1/runs/${id}/trajectory`)).text();
    expect(html).toBe(cliFragment(trajectory));
    expect(html).toContain('<pre class="stdout">a short greeting\n</pre>');
    expect(html).toContain('<div class="subcall ok" data-kind="llm" data-node="1">');
  });

  it('escapes what the query, the model and the code put in the page', async () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const engine = scriptedEngine(() => scriptedModel([`FINAL(${hostile})`]));
    await using server = await startTestServer({ engine });
    const { id } = await runToEnd(server, { query: `q ${hostile}` });
    const html = await (await server.request(`/v1/runs/${id}/view`)).text();
    expect(html).not.toContain('<img');
    expect(html).toContain(
      '<dt>Query</dt><dd class="query" data-field="query">q &lt;img src=x onerror=alert(1)&gt;</dd>',
    );
  });

  it('has the access rules of GET /v1/runs/:id: a key, and only its own runs', async () => {
    const engine = scriptedEngine(() => scriptedModel(['FINAL(1)']));
    await using server = await startTestServer({ engine });
    const { id } = await runToEnd(server, { query: 'q' });
    expect((await server.request(`/v1/runs/${id}/view`, { key: null })).status).toBe(401);
    const other = await server.request(`/v1/runs/${id}/view`, { key: server.otherKey });
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain('rlm-trace');
    const admin = await server.request(`/v1/runs/${id}/view`, { key: server.adminKey });
    expect(admin.status).toBe(200);
  });
});
