import { childIterations } from './delegation-capability.js';

const FENCE = '```';

/**
 * The Python REPL's section on child RLMs (`rlm_query`, `rlm_query_batched`, a batched fan-out with
 * its own data per child). Include it only when the RLM can delegate (`depth < maxDepth - 1`).
 *
 * @param childBudget iterations each child gets, when known
 * @param contextHelpers whether the example may use the host's `chunk` helper
 * @example
 * pythonDelegationCapability(8);
 */
export function pythonDelegationCapability(childBudget?: number, contextHelpers = true): string {
  const parts = contextHelpers
    ? ['parts = chunk(300_000)']
    : [
        "parts = [{'start': start, 'end': start + 300_000} for start in range(0, len(context), 300_000)]",
      ];
  return [
    '## Delegating to child RLMs',
    '',
    '- `rlm_query(prompt, context=…, system_prompt=…, model=…)` → `str`: starts a child RLM one level deeper, with a fresh Python REPL of its own, waits for it to finish and returns its final answer. The child sees only what you give it: `prompt` is its task, `context` becomes its `context` variable (`str`, `list` or `dict`), `system_prompt` makes it a specialist that follows your instructions, and `model` picks its model.',
    '- `rlm_query_batched(prompts, context=…, system_prompt=…, model=…)` → `list[str]`: one child per prompt, run concurrently, answers in order. A child that fails leaves an "Error: …" string in its slot. The keyword arguments apply to every child; to give each child its own data, pass dicts such as `{"prompt": …, "context": …}` instead of strings.',
    childIterations(childBudget),
    '- Use a child when the sub-task needs its own exploration with code (a large slice, several steps). For a single read of a piece of text, `llm_query` is cheaper.',
    '',
    `${FENCE}repl`,
    ...parts,
    'findings = rlm_query_batched([',
    '    {',
    '        \'prompt\': f\'You get part {i + 1} of {len(parts)} of a contract archive as context. Find every clause about early termination and return a JSON array of {{"contract", "clause", "quote"}}.\',',
    "        'context': context[p['start']:p['end']],",
    '    }',
    '    for i, p in enumerate(parts)',
    '])',
    'for i, text in enumerate(findings):',
    "    print(f'part {i + 1}: {text[:300]}')",
    FENCE,
  ].join('\n');
}
