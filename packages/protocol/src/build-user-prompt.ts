export interface BuildUserPromptInput {
  /** The user's question, quoted back each turn when given. */
  rootPrompt?: string | undefined;
  /** 0-based turn number; turn 0 carries the first-look safeguard. */
  iteration: number;
  /** Payloads in the REPL; more than one adds a note naming `context_0 … context_{n-1}`. */
  contextCount?: number;
  /** Earlier conversations kept in the REPL (`history` or `history_0 …`). */
  historyCount?: number;
}

const FIRST_TURN =
  "You have not looked at the REPL or your context yet, so you cannot know the answer. Don't give a " +
  'final answer in this turn: start by inspecting `context` and making a plan.';

const LATER_TURN = 'Everything above is your earlier work with the REPL.';

function contextNote(contextCount: number): string {
  if (contextCount <= 1) return '';
  return (
    `\n\nNote: the REPL holds ${contextCount} contexts, \`context_0\` through ` +
    `\`context_${contextCount - 1}\` (\`context\` is \`context_0\`).`
  );
}

function historyNote(historyCount: number): string {
  if (historyCount <= 0) return '';
  if (historyCount === 1) {
    return '\n\nNote: `history` holds your earlier conversation in this session, as a list of messages.';
  }
  return (
    `\n\nNote: ${historyCount} earlier conversations of this session are in \`history_0\` through ` +
    `\`history_${historyCount - 1}\`, each a list of messages.`
  );
}

/**
 * The user message that opens each turn of the loop.
 *
 * @example
 * buildUserPrompt({ rootPrompt: 'Who won?', iteration: 0 });
 */
export function buildUserPrompt({
  rootPrompt,
  iteration,
  contextCount = 1,
  historyCount = 0,
}: BuildUserPromptInput): string {
  const opening = iteration === 0 ? FIRST_TURN : LATER_TURN;
  const task =
    rootPrompt === undefined ? 'answer the query' : `answer the original prompt: "${rootPrompt}"`;
  const body =
    ` Work step by step in \`\`\`repl blocks: the REPL holds \`context\`, and you can call ` +
    `sub-models from code. Your goal is to ${task}. What do you do next?`;
  return opening + body + contextNote(contextCount) + historyNote(historyCount);
}
