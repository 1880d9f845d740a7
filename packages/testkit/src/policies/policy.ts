import type { ChatMessage, ReplLanguage } from '@rlm/protocol';

/** The part of a request a policy reads: the same for `scriptedModel` and the fake servers. */
export interface PolicyRequest {
  system?: string | undefined;
  messages: readonly ChatMessage[];
}

/**
 * A rule-based "model": a pure function from the conversation to the reply text. It can be
 * passed as a `scriptedModel` script or as a fake server's script unchanged.
 */
export type Policy = (request: PolicyRequest) => string;

/** Sub-call prompts a policy writes start with `[testkit:<kind>]` so it can recognise them. */
export function subCallTag(kind: string): string {
  return `[testkit:${kind}]`;
}

/** The text of the newest user message, or '' when there is none. */
export function lastUserText(request: PolicyRequest): string {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (message?.role === 'user') return message.content;
  }
  return '';
}

/**
 * The body of a sub-call the policy itself issued (everything after the tag line), or
 * `undefined` when the request is a REPL-loop turn. Loop turns never start with a tag: they
 * start with the turn prompt or REPL output.
 */
export function subCallBody(request: PolicyRequest, kind: string): string | undefined {
  const text = lastUserText(request).trimStart();
  if (!text.startsWith(subCallTag(kind))) return undefined;
  const newline = text.indexOf('\n');
  return newline < 0 ? '' : text.slice(newline + 1);
}

/** How many replies the model has already given in this conversation (0 on the first turn). */
export function turnIndex(request: PolicyRequest): number {
  return request.messages.filter((message) => message.role === 'assistant').length;
}

/** Wraps code in a ```repl fence. */
export function replBlock(code: string): string {
  return `\`\`\`repl\n${code.trim()}\n\`\`\``;
}

const EXPLORE_INTRO =
  'I have not looked at the context yet, so I will inspect its type and size first.';

/** The first turn of every policy: look at the context before answering, as the loop asks. */
export const EXPLORE_REPLY = [
  EXPLORE_INTRO,
  replBlock(`
const __kind = Array.isArray(context) ? 'array' : typeof context;
const __size = __kind === 'string' ? context.length : JSON.stringify(context).length;
print('context:', __kind, __size, 'chars');
print(String(__kind === 'string' ? context : JSON.stringify(context)).slice(0, 200));
`),
].join('\n\n');

/** `EXPLORE_REPLY` for a Python REPL (`@rlm/sandbox-python`). */
export const PYTHON_EXPLORE_REPLY = [
  EXPLORE_INTRO,
  replBlock(`
import json
__text = context if isinstance(context, str) else json.dumps(context)
print('context:', type(context).__name__, len(__text), 'chars')
print(__text[:200])
`),
].join('\n\n');

/** Options a policy takes for the REPL it writes code for. */
export interface PolicyLanguageOptions {
  /**
   * The language of the RLM's REPL: the policy writes JavaScript (`@rlm/sandbox`) or Python
   * (`@rlm/sandbox-python`, blocking calls, keyword arguments). @default 'javascript'
   */
  language?: ReplLanguage;
}

/**
 * The reply for a loop turn: explore on turn 0 (in `language`), run `solveCode` (which must
 * assign `answer`) and finish with `FINAL_VAR(answer)` on turn 1, and on later turns (the variable
 * was missing, or the loop asks for a final answer) just point at `answer` again.
 */
export function loopReply(
  request: PolicyRequest,
  solveCode: string,
  language: ReplLanguage = 'javascript',
): string {
  const turn = turnIndex(request);
  if (turn === 0) return language === 'python' ? PYTHON_EXPLORE_REPLY : EXPLORE_REPLY;
  if (turn === 1) {
    return `Now I can solve it in code.\n\n${replBlock(solveCode)}\n\nFINAL_VAR(answer)`;
  }
  return 'The answer is in the variable `answer`.\n\nFINAL_VAR(answer)';
}
