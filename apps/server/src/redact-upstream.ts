import type { Principal } from './api-key-store.js';

// A model id may carry its server: `openai-compatible/qwen@http://10.0.0.7:8000/v1`. HTML-escaped
// text is covered too (the trace view escapes nothing in URLs that this pattern needs).
const UPSTREAM_URL = /@(?:https?|wss?):\/\/[^\s"'<>\\]*/g;

/**
 * What a key may see of a text about runs: admins see everything; for other keys the upstream
 * server of every model id is removed (`provider/model@http://host/v1` → `provider/model`), so
 * ordinary users never learn internal URLs. Provider keys never appear in run data at all.
 */
export function redactUpstream(principal: Principal, text: string): string {
  return principal.role === 'admin' ? text : text.replace(UPSTREAM_URL, '');
}

/** `redactUpstream` over a JSON value (by its serialisation). */
export function redactUpstreamJson<T>(principal: Principal, value: T): T {
  if (principal.role === 'admin') return value;
  return JSON.parse(redactUpstream(principal, JSON.stringify(value))) as T;
}
