const FENCE = '```';

/** The bullet on what children cost: their own iterations, the tree's shared budget. */
export function childIterations(childBudget: number | undefined): string {
  if (childBudget === undefined) {
    return '- Children spend their own iterations, not yours: their turns do not count against your iteration budget. Each child gets its own allowance (a child sees it in `__rlm.maxIterations`). Tokens, cost and time are shared by the whole tree, so every child still costs you budget.';
  }
  const turns = childBudget === 1 ? '1 iteration' : `${childBudget} iterations`;
  return `- Children spend their own iterations, not yours: their turns do not count against your iteration budget. Each child gets up to ${turns}, so give it a task it can finish in that many turns. Tokens, cost and time are shared by the whole tree, so every child still costs you budget.`;
}

/**
 * The section that documents child RLMs (`rlm_query`, `rlm_query_batched`, fan-out). Include it only
 * when the RLM can delegate, that is when `depth < maxDepth - 1`.
 *
 * @param childBudget iterations each child gets, when known
 * @param contextHelpers whether the example may use the host's `chunk` helper
 * @example
 * delegationCapability(8);
 */
export function delegationCapability(childBudget?: number, contextHelpers = true): string {
  const parts = contextHelpers
    ? ['const parts = await chunk(300_000);']
    : [
        'const parts = [];',
        'for (let start = 0; start < context.length; start += 300_000) parts.push({ start, end: start + 300_000 });',
      ];
  return [
    '## Delegating to child RLMs',
    '',
    '- `await rlm_query(prompt, { context, systemPrompt, model })` → string: starts a child RLM one level deeper, with a fresh REPL of its own, and returns its final answer. The child sees only what you give it: `prompt` is its task, `context` becomes its `context` variable (string, array or object), `systemPrompt` makes it a specialist that follows your instructions, and `model` picks its model.',
    '- `await rlm_query_batched(prompts, { context, systemPrompt, model })` → string[]: one child per prompt with the same options, run concurrently, answers in order. A child that fails leaves an "Error: …" string in its slot.',
    '- To give each child different data, start them yourself and wait for all of them at once with `Promise.all`.',
    childIterations(childBudget),
    '- Use a child when the sub-task needs its own exploration with code (a large slice, several steps). For a single read of a piece of text, `llm_query` is cheaper.',
    '',
    `${FENCE}repl`,
    ...parts,
    'const findings = await Promise.all(',
    '  parts.map(({ start, end }, i) =>',
    '    rlm_query(',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript shown to the model
    '      `You get part ${i + 1} of ${parts.length} of a contract archive as context. Find every clause about early termination and return a JSON array of {"contract", "clause", "quote"}.`,',
    '      { context: context.slice(start, end) },',
    '    ),',
    '  ),',
    ');',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript shown to the model
    "print(findings.map((text, i) => `part ${i + 1}: ${text.slice(0, 300)}`).join('\\n'));",
    FENCE,
  ].join('\n');
}
