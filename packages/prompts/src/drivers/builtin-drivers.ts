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
