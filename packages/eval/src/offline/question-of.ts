import type { PolicyRequest } from '@rlm/testkit';

// How @rlm/protocol's `buildUserPrompt` quotes the query in every turn prompt of the root loop.
const OPEN = 'answer the original prompt: "';
const CLOSE = '". What do you do next?';

/**
 * The question of a root-loop request, read from its newest turn prompt, or `undefined` when the
 * conversation has none (a sub-call, or a loop run without a query).
 */
export function questionOf(request: PolicyRequest): string | undefined {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message?.role !== 'user') continue;
    const start = message.content.indexOf(OPEN);
    const end = message.content.lastIndexOf(CLOSE);
    if (start >= 0 && end > start) return message.content.slice(start + OPEN.length, end);
  }
  return undefined;
}
