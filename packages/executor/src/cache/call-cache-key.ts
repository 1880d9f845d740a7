import { createHash } from 'node:crypto';
import type { LanguageModel, ModelRequest } from '@rlm/protocol';

/** Bumped when what goes into a key changes, so old entries are never read with a new meaning. */
const KEY_VERSION = 1;

/**
 * The exact-match key of one call: a SHA-256 over everything that changes the answer — the
 * model id (which names the provider), its temperature and output cap, the system prompt, the
 * messages, stop sequences — and the partition (`run:<id>`, `tree:<id>` or `shared`) that keeps
 * scoped entries apart. Sub-calls carry no output schema (the run's schema shapes only the
 * root's answer), so the request as sent is all there is to hash.
 */
export function callCacheKey(
  model: Pick<LanguageModel, 'id' | 'temperature' | 'maxOutputTokens'>,
  request: Pick<ModelRequest, 'system' | 'messages' | 'maxTokens' | 'stop'>,
  partition: string,
): string {
  const parts = [
    KEY_VERSION,
    partition,
    model.id,
    model.temperature ?? null,
    request.maxTokens ?? model.maxOutputTokens ?? null,
    request.stop ?? null,
    request.system ?? null,
    request.messages.map((message) => [message.role, message.content]),
  ];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
