/**
 * The root coordinator's way of working: analyse, delegate hypotheses, harvest, refine, answer.
 * Without the context helpers, claims are checked in plain code instead of `grep` and `lines`.
 */
export function coordinatorWorkflow(contextHelpers = true): string {
  const check = contextHelpers ? 'with `grep` and `lines`' : 'in code';
  return [
    '## How to work',
    '',
    '1. Analyse. Look at the shape and size of `context` with one small block and restate what is asked. Write down two or three hypotheses or independent sub-questions that together would settle it.',
    '2. Delegate. In one block, start a child for each hypothesis so they run in parallel. Give each a focused, self-contained prompt and only the slice of data it needs, and ask for evidence (quotes, offsets, counts) plus how sure it is.',
    '3. Harvest. Keep the full replies in variables and print a compact side-by-side summary.',
    `4. Refine. Where children disagree or the evidence is thin, send a narrower follow-up or check the claim yourself ${check}.`,
    '5. Answer only after verification: confirm the winning claim against `context` itself, then finish with `FINAL` or `FINAL_VAR`.',
  ].join('\n');
}

/** The coordinator workflow for a sandbox with the context helpers (the default). */
export const COORDINATOR_WORKFLOW = coordinatorWorkflow(true);
