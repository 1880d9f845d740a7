import type { CodeBlock, QueryMetadata } from '@rlm/protocol';

/** What the loop tells the model besides the protocol's turn prompts (our wording). */

/** Appended to the turn prompt of the last iteration. */
export const LAST_ITERATION_NOTE =
  '\n\nThis is your last iteration. Give your final answer in this response with FINAL(...) or ' +
  'FINAL_VAR(name), using what you have found so far.';

/**
 * The request of the extra call made when the iterations ran out. Only a `FINAL`/`FINAL_VAR` in
 * its reply becomes the answer; code in it no longer runs.
 */
export const DEFAULT_ANSWER_PROMPT =
  'You have used all your iterations and code no longer runs. From everything above, give your ' +
  'best final answer to the original query now: write FINAL(your answer) at the start of a line, ' +
  'or FINAL_VAR(name) to answer with a REPL variable that already holds it.';

/** Sent once when the model answers on turn 0 without having run any code. */
export const FIRST_TURN_NUDGE =
  'Your final answer was not accepted: you have not run any code or looked at `context` yet. ' +
  'Inspect the context in a ```repl block first, then answer from what you find.';

/** Sent when blocks beyond the per-iteration cap were skipped. */
export function skippedBlocksNote(ran: number, skipped: number): string {
  return (
    `Only the first ${ran} code blocks of your response ran; ${skipped} more were skipped. ` +
    'Put fewer, larger steps in each response.'
  );
}

/** Sent after a turn in which the sandbox had to be restarted (a block's error is `sandbox.reset`). */
export const REPL_RESET_NOTE =
  'Your REPL was reset during this turn: a block ran past its limits inside a single built-in call ' +
  'the sandbox could not interrupt (its error above says which), so the sandbox was restarted on a ' +
  'fresh engine. Every variable and function you defined earlier is gone; `context` and the helper ' +
  'functions are back. Rebuild only what you need, in smaller steps (no single JSON.stringify, sort ' +
  'or regex over a huge value).';

/** Sent when `FINAL_VAR(name)` in the text named a variable too large to be an answer. */
export function tooLargeVariableNote(name: string, maxChars: number): string {
  return (
    `FINAL_VAR(${name}) is not an answer: \`${name}\` holds more than ${maxChars} characters, the ` +
    'most a final answer may have. Answer with something shorter (a summary, or only the part the ' +
    'question asks for).'
  );
}

/** Sent when `FINAL_VAR(name)` in the text named a variable the sandbox could not read. */
export function unreadableVariableNote(name: string, reason: string): string {
  return `FINAL_VAR(${name}) is not an answer: \`${name}\` could not be read (${reason}).`;
}

/** Sent when `FINAL_VAR(name)` in the text named a variable that does not exist or is empty. */
export function missingVariableNote(name: string, existing: readonly string[]): string {
  const list =
    existing.length === 0
      ? 'No variables exist yet.'
      : `Variables that exist: ${existing.join(', ')}.`;
  return (
    `FINAL_VAR(${name}) is not an answer: there is no non-empty variable \`${name}\` in the REPL. ` +
    `${list} Create it in a \`\`\`repl block first, or answer with FINAL(...).`
  );
}

/** Sent when `FINAL_VAR(name)` named a variable that exists but holds `undefined`. */
export function undefinedVariableNote(name: string): string {
  return (
    `FINAL_VAR(${name}) is not an answer: \`${name}\` holds undefined (the code that should set ` +
    'it did not run to the end, or never assigned it). Assign it in a ```repl block first, or ' +
    'answer with FINAL(...).'
  );
}

/** Appended to the metadata message of a session's later runs: where this run's payload is. */
export function sessionPayloadNote(contextIndex: number): string {
  if (contextIndex === 0) return '';
  return (
    ` That describes this conversation's payload, which is \`context_${contextIndex}\`; ` +
    '`context` is still the first payload of the session.'
  );
}

/**
 * Appended to the metadata message when a run has several payloads: what `context_1`, … hold,
 * described from each payload's own metadata (the message above describes `context_0`).
 */
export function extraContextsNote(extras: readonly QueryMetadata[]): string {
  if (extras.length === 0) return '';
  const lines = extras.map(({ contextType, contextLengths, contextTotalLength }, index) => {
    const article = contextType === 'string' ? 'a' : 'an';
    return (
      `\`context_${index + 1}\` is ${article} ${contextType} of ${contextTotalLength} characters ` +
      `(${contextLengths.length} chunks).`
    );
  });
  return (
    `\n\nThe REPL holds ${extras.length + 1} contexts: \`context_0\` is the one described above ` +
    `(also \`context\`). ${lines.join(' ')}`
  );
}

/** How many of a turn's blocks ended with the REPL's engine replaced (`sandbox.reset`). */
export function resetBlocks(ran: readonly CodeBlock[]): number {
  let resets = 0;
  for (const block of ran) if (block.result.error?.code === 'sandbox.reset') resets += 1;
  return resets;
}

/** `sandboxResets` for a run's result and `run-end`: absent when the REPL was never reset. */
export function resetsField(resets: number): { sandboxResets?: number } {
  return resets === 0 ? {} : { sandboxResets: resets };
}

/** What the model is told about how its blocks ran: skipped blocks, a REPL that was reset. */
export function blockNotes({ found, ran }: { found: number; ran: readonly CodeBlock[] }): string[] {
  const notes: string[] = [];
  if (found > ran.length) notes.push(skippedBlocksNote(ran.length, found - ran.length));
  if (ran.some((block) => block.result.error?.code === 'sandbox.reset')) {
    notes.push(REPL_RESET_NOTE);
  }
  return notes;
}
