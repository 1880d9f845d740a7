/** The root coordinator's way of working: analyse, delegate hypotheses, harvest, refine, answer. */
export const COORDINATOR_WORKFLOW = [
  '## How to work',
  '',
  '1. Analyse. Look at the shape and size of `context` with one small block and restate what is asked. Write down two or three hypotheses or independent sub-questions that together would settle it.',
  '2. Delegate. In one block, start a child for each hypothesis so they run in parallel. Give each a focused, self-contained prompt and only the slice of data it needs, and ask for evidence (quotes, offsets, counts) plus how sure it is.',
  '3. Harvest. Keep the full replies in variables and print a compact side-by-side summary.',
  '4. Refine. Where children disagree or the evidence is thin, send a narrower follow-up or check the claim yourself with `grep` and `lines`.',
  '5. Answer only after verification: confirm the winning claim against `context` itself, then finish with `FINAL` or `FINAL_VAR`.',
].join('\n');
