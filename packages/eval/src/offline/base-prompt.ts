/** The system prompt of the base system: a direct question over pasted context. */
export const BASE_SYSTEM_PROMPT =
  'You answer questions about the context in the user message. Read all of it, then reply with ' +
  'the answer only, in the format the question asks for, without explanation.';

/** Opens the pasted context in the base system's user message. */
export const BASE_CONTEXT_OPEN = '<context>';
/** Closes it. */
export const BASE_CONTEXT_CLOSE = '</context>';

/** The base system's user message. */
export function baseUserMessage({ context, query }: { context: string; query: string }): string {
  return `${BASE_CONTEXT_OPEN}\n${context}\n${BASE_CONTEXT_CLOSE}\n\nQuestion: ${query}`;
}

/** The pasted context of a base request, or `undefined` for any other request. */
export function baseContextOf(message: string): string | undefined {
  if (!message.startsWith(`${BASE_CONTEXT_OPEN}\n`)) return undefined;
  const end = message.lastIndexOf(`\n${BASE_CONTEXT_CLOSE}`);
  return end < 0 ? undefined : message.slice(BASE_CONTEXT_OPEN.length + 1, end);
}
