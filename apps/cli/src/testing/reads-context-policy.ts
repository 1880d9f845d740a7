import type { FakeModelRequest, FakeReplyValue } from '@rlm/testkit';

/** Turn 0 reply of `readsContextPolicy`: find the answer with code, keep it in a variable. */
export const READ_CONTEXT_REPLY = [
  'I will read the context first.',
  '```repl',
  'const text = Array.isArray(context)',
  '  ? context.join("|")',
  '  : typeof context_1 !== "undefined" ? [context_0, context_1].join("|")',
  '  : typeof context === "string" ? context : JSON.stringify(context);',
  'const match = /magic number is (\\d+)/.exec(text);',
  'const found = match === null ? text.trim() : match[1];',
  'print(found);',
  '```',
].join('\n');

/**
 * A fake-server script (Anthropic or OpenAI wire) for the executor loop: on its first turn the "model" runs code over the
 * context, on its second it answers with `FINAL_VAR(found)`, so the answer is whatever the code
 * really computed in the sandbox. `slowSecondTurnMs` delays the second reply (for Ctrl-C tests).
 */
export function readsContextPolicy({ slowSecondTurnMs = 0 }: { slowSecondTurnMs?: number } = {}) {
  return (request: FakeModelRequest): FakeReplyValue => {
    const turns = request.messages.filter((message) => message.role === 'assistant').length;
    if (turns === 0) return READ_CONTEXT_REPLY;
    return { text: 'FINAL_VAR(found)', delayMs: slowSecondTurnMs };
  };
}
