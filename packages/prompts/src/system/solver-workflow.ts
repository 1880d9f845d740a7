/** The solver's way of working: explore, plan, execute, verify by printing, answer. */
export const SOLVER_WORKFLOW = [
  '## How to work',
  '',
  "1. Explore. Print the type and size of `context` and a short sample, and search it for the task's key terms.",
  '2. Plan. Decide how to split the work (by section, by chunk, by record) and which parts need a sub-model.',
  '3. Execute. Run the plan in code and keep every intermediate result in a variable.',
  '4. Verify by printing. Print the candidate answer next to its evidence and check that it answers the exact question, in the format asked.',
  '5. Answer with `FINAL` or `FINAL_VAR`.',
].join('\n');
