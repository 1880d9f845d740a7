/**
 * The table of HTTP operations `/openapi.json` documents; a test checks it against the routes
 * Hono registered, so a route cannot be added without its documentation.
 */

/** One documented operation. `body`/`response` name schemas in `components.schemas`. */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  tag: string;
  auth: 'none' | 'key' | 'admin';
  body?: string | { contentType: string; description: string };
  response: { status: number; schema?: string; contentType?: string; description?: string };
}

/** Every route of the app; a test checks this table against the routes Hono registered. */
export const OPERATIONS: readonly Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    tag: 'operations',
    auth: 'none',
    response: { status: 200, description: '{"status":"ok"}' },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness (store reachable, accepting runs)',
    tag: 'operations',
    auth: 'none',
    response: { status: 200, description: 'ready; 503 when not' },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    tag: 'operations',
    auth: 'none',
    response: { status: 200, contentType: 'text/plain; version=0.0.4' },
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    tag: 'operations',
    auth: 'none',
    response: { status: 200, contentType: 'application/json' },
  },
  {
    method: 'post',
    path: '/v1/runs',
    summary: 'Start a run (202; queued)',
    tag: 'runs',
    auth: 'key',
    body: 'CreateRunRequest',
    response: { status: 202, schema: 'Run' },
  },
  {
    method: 'get',
    path: '/v1/runs',
    summary: 'List your runs (newest first; ?status=a,b&limit=&cursor=)',
    tag: 'runs',
    auth: 'key',
    response: { status: 200, schema: 'RunPage' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}',
    summary: 'A run: status, answer, usage, cost',
    tag: 'runs',
    auth: 'key',
    response: { status: 200, schema: 'Run' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/events',
    summary: 'Run events as SSE (id = sequence; resume with Last-Event-ID; ends with event "end")',
    tag: 'runs',
    auth: 'key',
    response: { status: 200, schema: 'RunEvent', contentType: 'text/event-stream' },
  },
  {
    method: 'post',
    path: '/v1/runs/{id}/cancel',
    summary: 'Cancel a queued or running run (409 once ended)',
    tag: 'runs',
    auth: 'key',
    response: { status: 202, schema: 'Run' },
  },
  {
    method: 'delete',
    path: '/v1/runs/{id}',
    summary:
      'Delete an ended run with its events, checkpoints, trajectory and child runs, and its inline context (owner or admin; 409 while queued or running: cancel first)',
    tag: 'runs',
    auth: 'key',
    response: { status: 204, description: 'no body' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/trajectory',
    summary: 'The trajectory as JSONL',
    tag: 'runs',
    auth: 'key',
    response: { status: 200, schema: 'TrajectoryRecord', contentType: 'application/x-ndjson' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/view',
    summary:
      'The run as the trace view of `rlm trace --html` (HTML fragment; headers x-last-event-id, x-run-status)',
    tag: 'runs',
    auth: 'key',
    response: { status: 200, contentType: 'text/html' },
  },
  {
    method: 'post',
    path: '/v1/contexts',
    summary: 'Upload a context (text/plain or application/json), streamed to disk',
    tag: 'runs',
    auth: 'key',
    body: {
      contentType: 'text/plain',
      description: 'The context; application/json for a JSON string, array or object',
    },
    response: { status: 201, schema: 'Context' },
  },
  {
    method: 'get',
    path: '/v1/contexts/{id}',
    summary: 'An uploaded context’s metadata',
    tag: 'runs',
    auth: 'key',
    response: { status: 200, schema: 'Context' },
  },
  {
    method: 'delete',
    path: '/v1/contexts/{id}',
    summary:
      'Delete an uploaded context (owner or admin; 409 while a queued or running run uses it)',
    tag: 'runs',
    auth: 'key',
    response: { status: 204, description: 'no body' },
  },
  {
    method: 'post',
    path: '/v1/chat/completions',
    summary: 'OpenAI-compatible chat completion (stream: true for SSE chunks)',
    tag: 'openai',
    auth: 'key',
    body: 'ChatCompletionRequest',
    response: { status: 200, schema: 'ChatCompletion' },
  },
  {
    method: 'get',
    path: '/v1/models',
    summary: 'The configured profiles, in OpenAI model-list shape',
    tag: 'openai',
    auth: 'key',
    response: {
      status: 200,
      description: '{ object: "list", data: [{ id, object: "model", created, owned_by }] }',
    },
  },
  {
    method: 'get',
    path: '/v1/models/{id}',
    summary: 'One profile, in OpenAI model shape',
    tag: 'openai',
    auth: 'key',
    response: { status: 200, description: '{ id, object: "model", created, owned_by }' },
  },
  {
    method: 'post',
    path: '/v1/agents',
    summary: 'Create an agent',
    tag: 'agents',
    auth: 'key',
    body: 'CreateAgentRequest',
    response: { status: 201, schema: 'Agent' },
  },
  {
    method: 'get',
    path: '/v1/agents',
    summary: 'List your agents',
    tag: 'agents',
    auth: 'key',
    response: { status: 200, description: '{ data: Agent[] }' },
  },
  {
    method: 'get',
    path: '/v1/agents/{id}',
    summary: 'An agent',
    tag: 'agents',
    auth: 'key',
    response: { status: 200, schema: 'Agent' },
  },
  {
    method: 'post',
    path: '/v1/agents/{id}/messages',
    summary: 'Send a message; runs one turn and returns the reply',
    tag: 'agents',
    auth: 'key',
    body: 'AgentMessageRequest',
    response: { status: 200, schema: 'AgentTurn' },
  },
  {
    method: 'get',
    path: '/v1/agents/{id}/conversations',
    summary: 'Senders with counts and last activity',
    tag: 'agents',
    auth: 'key',
    response: { status: 200, description: '{ data: Sender[] }' },
  },
  {
    method: 'get',
    path: '/v1/agents/{id}/conversations/{sender}',
    summary: 'A sender’s stored exchanges',
    tag: 'agents',
    auth: 'key',
    response: { status: 200, description: '{ sender, data: Exchange[] }' },
  },
  {
    method: 'get',
    path: '/v1/agents/{id}/prompt-layers',
    summary: 'All 11 layers with mutability and versions (?history=1 adds history)',
    tag: 'agents',
    auth: 'key',
    response: { status: 200, description: '{ data: PromptLayer[] }' },
  },
  {
    method: 'get',
    path: '/v1/agents/{id}/prompt-layers/{layerId}/history',
    summary: 'Every version of a mutable layer',
    tag: 'agents',
    auth: 'key',
    response: { status: 200, description: '{ data: PromptLayerVersion[] }' },
  },
  {
    method: 'put',
    path: '/v1/agents/{id}/prompt-layers/{layerId}',
    summary: 'Replace a mutable layer (admin; 0–5 → 403)',
    tag: 'agents',
    auth: 'admin',
    body: 'LayerUpdateRequest',
    response: { status: 200, schema: 'PromptLayerVersion' },
  },
  {
    method: 'post',
    path: '/v1/agents/{id}/prompt-layers/{layerId}/rollback',
    summary: 'Restore an earlier version of a mutable layer as a new version (admin)',
    tag: 'agents',
    auth: 'admin',
    body: 'LayerRollbackRequest',
    response: { status: 200, schema: 'PromptLayerVersion' },
  },
  {
    method: 'get',
    path: '/v1/cache/stats',
    summary: 'Sub-call cache totals: entries, hits, what it saved (admin)',
    tag: 'operations',
    auth: 'admin',
    response: {
      status: 200,
      description:
        '{"entries","hits","savedCostUsd","savedTokens","responseChars","oldestAt","newestAt"}',
    },
  },
  {
    method: 'delete',
    path: '/v1/cache',
    summary: 'Delete every cached sub-call answer (admin)',
    tag: 'operations',
    auth: 'admin',
    response: { status: 200, description: '{"deleted": <entries deleted>}' },
  },
  {
    method: 'put',
    path: '/v1/agents/{id}/identity-tag',
    summary:
      'Change the identity tag of layer 3 (admin; checked like a layer, one line, ≤ 64 chars)',
    tag: 'agents',
    auth: 'admin',
    body: 'IdentityTagUpdateRequest',
    response: { status: 200, schema: 'Agent' },
  },
  {
    method: 'delete',
    path: '/v1/agents/{id}',
    summary:
      'Delete an agent with its conversations, prompt layers, scratchpad and working memory, after any turn in progress (owner or admin; 204)',
    tag: 'agents',
    auth: 'key',
    response: { status: 204, description: 'no body' },
  },
  {
    method: 'get',
    path: '/ui/runs/{id}',
    summary: 'Live run page (HTML; the key is entered in the page)',
    tag: 'ui',
    auth: 'none',
    response: { status: 200, contentType: 'text/html' },
  },
  {
    method: 'get',
    path: '/ui/agents/{id}',
    summary: 'Agent page (HTML; the key is entered in the page)',
    tag: 'ui',
    auth: 'none',
    response: { status: 200, contentType: 'text/html' },
  },
];
