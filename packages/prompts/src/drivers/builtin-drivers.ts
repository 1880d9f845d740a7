import type { Driver } from './driver.js';
import { parseDriver } from './parse-driver.js';

/**
 * The built-in drivers as driver files (front-matter + markdown), keyed by name. They ship as
 * strings so the package needs no file system; `builtinDrivers()` parses them with the same parser
 * users' files go through.
 */
export const BUILTIN_DRIVER_FILES = {
  'verify-before-final': `---
name: verify-before-final
description: Check the answer against the context before finishing.
modes: [solver, coordinator]
---
## Driver: verify before you finish

Before any FINAL or FINAL_VAR, run one block that checks the answer:
- Print the candidate answer next to the evidence it rests on (quotes, line numbers, counts).
- Re-check each factual claim against \`context\` in code (search for it, count it, read the lines around it), not from memory.
- Confirm it answers the exact question, in the requested format.
If the check fails or finds gaps, fix them in the next turn instead of answering.`,

  'deadline-final': `---
name: deadline-final
description: Deliver an answer before the iterations run out.
modes: [solver, coordinator]
---
## Driver: finish before the deadline

Compare the \`iteration\` and \`maxIterations\` entries of \`__rlm\` at the start of each turn. When two turns or fewer remain, stop exploring: put the best answer you can support into a variable, print it, and finish with FINAL_VAR in the following turn at the latest. A partial answer that says what is missing beats no answer.`,

  'delegation-first': `---
name: delegation-first
description: Coordinator reflex - delegate hypotheses early instead of exploring alone.
modes: [coordinator]
conflicts: [solver]
---
## Driver: delegate first

By your second turn, children should already be working. After one short look at the shape of \`context\`, write down two or three hypotheses and start a child for each in the same block. Do your own exploration only while they run, or to check what they report; never read the whole context yourself.`,

  'batch-discipline': `---
name: batch-discipline
description: Few, well-filled sub-calls in bounded batches.
modes: [solver, coordinator]
---
## Driver: batch discipline

- Fill each sub-call: pass pieces of tens of thousands of characters, not a line or a paragraph each.
- Put at most about 20 prompts in one \`llm_query_batched\` or \`rlm_query_batched\` call; for more work, run several batches one after another and print progress between them.
- Check the results for "Error: …" slots and retry only those, once.`,

  'await-discipline': `---
name: await-discipline
description: Await every host call and collect background work before answering.
modes: [solver, coordinator]
repls: [javascript]
---
## Driver: await discipline

- Put \`await\` in front of every host function (\`llm_query\`, \`rlm_query\` and every other function the host provides); a forgotten \`await\` stores a Promise, not a result.
- Start parallel work with \`Promise.all\` and await it in the same block.
- If you started background tasks, collect every result (or decide to drop it on purpose) before you answer.`,

  'hypothesis-budget': `---
name: hypothesis-budget
description: Solo investigation from a scoreboard of at most three live hypotheses, cheapest discriminating test first.
modes: [solver]
conflicts: [coordinator]
---
## Driver: hypothesis budget

Investigate from a written scoreboard instead of reading around.
- Keep a variable \`hypotheses\`: at most three live entries, each with a one-line claim, the evidence for and against it so far, and a status (live, supported or refuted). Print the board at the end of every turn.
- Each turn, run the test that best tells the live hypotheses apart for the least cost: a search or a count in code before a sub-call, one sub-call before a batch. Say beforehand which result would refute which hypothesis.
- When a result contradicts a hypothesis, mark it refuted and take it off the board; only then may a new one take its place. Never keep more than three.
- Answer once one hypothesis is supported by evidence you printed and every other one is refuted or could not change the answer.`,

  'exploration-budget': `---
name: exploration-budget
description: Solo work in three phases (orient, commit, execute), each with its own share of the turns.
modes: [solver]
conflicts: [coordinator]
---
## Driver: exploration budget

Split your iterations (\`__rlm\` has \`iteration\` and \`maxIterations\`) into three phases and say at the start of each turn which one you are in.
1. Orient, about the first fifth of the turns (at least one, at most three): look at the size and structure of \`context\`, sample a few places, and note what the question needs. No answers yet.
2. Commit, one turn: write down the plan you will follow (what to extract, how to split the work, what the answer will look like) in a variable and print it. From here on, change the plan only when a result proves it wrong, and say so.
3. Execute, the remaining turns minus one: carry the plan out and store partial results in variables as you go.
Keep the last turn for the answer. If a phase runs over its share, cut it short and move on rather than taking turns from the answer.`,
} as const;

/** The name of a built-in driver. */
export type BuiltinDriverName = keyof typeof BUILTIN_DRIVER_FILES;

/** Names of the built-in drivers, in a stable order. */
export const BUILTIN_DRIVER_NAMES = Object.keys(BUILTIN_DRIVER_FILES) as BuiltinDriverName[];

/**
 * Parses and returns every built-in driver (source `builtin:<name>`).
 *
 * @example
 * builtinDrivers().map((driver) => driver.name); // ['verify-before-final', 'deadline-final', …]
 */
export function builtinDrivers(): Driver[] {
  return BUILTIN_DRIVER_NAMES.map((name) =>
    parseDriver(BUILTIN_DRIVER_FILES[name], `builtin:${name}`),
  );
}
