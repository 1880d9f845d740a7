const FLAT =
  'You are answering in a single reply, without a REPL, code execution or tools: everything you need ' +
  'is in the message you receive. Read it closely, reason as far as the question requires, and reply ' +
  'with the answer itself in the format the request asks for, without code blocks or FINAL markers. If ' +
  'the material does not contain the answer, say so plainly instead of guessing.';

/** Options of `buildFlatPrompt`. */
export interface FlatPromptOptions {
  /** A caller's instructions, placed before the one-shot rules. */
  systemPrompt?: string | undefined;
}

/**
 * The prompt for an RLM at `depth >= maxDepth`: no REPL, one direct answer. `rlm_query` falls back
 * to this one-shot call at the depth limit; a caller's `systemPrompt` comes first when given.
 *
 * @example
 * buildFlatPrompt();
 */
export function buildFlatPrompt({ systemPrompt }: FlatPromptOptions = {}): string {
  const own = systemPrompt?.trim();
  return own === undefined || own.length === 0 ? FLAT : `${own}\n\n${FLAT}`;
}
