import type { ReplLanguage } from '@rlm/protocol';

const LANGUAGE_TIPS: Record<ReplLanguage, readonly string[]> = {
  javascript: [
    '- Pass data through `{ context }`, not pasted into the prompt, so the child can search it with code.',
    '- Ask for compact, structured replies (JSON, a list, one number) that you can merge in code.',
    '- Start children together with `Promise.all` or a batch; awaiting them one by one wastes time.',
  ],
  python: [
    '- Pass data through `context=…`, not pasted into the prompt, so the child can search it with code.',
    '- Ask for compact, structured replies (JSON, a list, one number) that you can merge in code.',
    '- Start children together with `rlm_query_batched`; `rlm_query` in a loop runs them one after another.',
  ],
};

/**
 * Short, practical advice on delegating; included only when the RLM can delegate. Without the
 * context helpers, lookups are pointed at plain code instead of `grep`.
 */
export function delegationTips(contextHelpers = true, repl: ReplLanguage = 'javascript'): string {
  const lookup = contextHelpers ? 'with `grep`' : 'in code';
  return [
    '## Delegation tips',
    '',
    '- A child knows nothing but its prompt and its `context`: state the goal, the expected output format and any definitions it needs.',
    ...LANGUAGE_TIPS[repl],
    `- Delegate work that needs exploring; answer simple lookups yourself ${lookup}, and single reads with \`llm_query\`. Every child spends the shared token budget.`,
  ].join('\n');
}

/** The delegation tips for a sandbox with the context helpers (the default). */
export const DELEGATION_TIPS = delegationTips(true);
