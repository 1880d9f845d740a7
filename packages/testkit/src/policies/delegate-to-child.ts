import { contextStringsCode } from './context-strings-code.js';
import { DEFAULT_NEEDLE_PATTERN } from './needle-finder.js';
import { loopReply, type Policy, subCallBody, subCallTag } from './policy.js';

export interface DelegateToChildOptions {
  /** Regular-expression source whose first group is the answer. @default DEFAULT_NEEDLE_PATTERN */
  pattern?: string;
  /** Into how many parts the root splits its context, one child each. @default 2 */
  parts?: number;
}

const KIND = 'delegate';

/**
 * A recursive policy. At depth 0 it splits the context into `parts` line-aligned pieces and
 * hands each to a child RLM with `rlm_query(prompt, { context: piece })`; a child (depth > 0,
 * read from `__rlm.depth`) searches its own context with the pattern in code. Both finish with
 * `FINAL_VAR(answer)`. At the depth limit `rlm_query` becomes a plain call whose prompt carries
 * the piece; the policy answers that from the prompt text.
 *
 * @example
 * const model = scriptedModel(policies.delegateToChild());
 */
export function delegateToChild({
  pattern = DEFAULT_NEEDLE_PATTERN,
  parts = 2,
}: DelegateToChildOptions = {}): Policy {
  const regex = new RegExp(pattern);
  const prompt = `${subCallTag(KIND)} Find the needle in your context and reply with its value only, or NONE.`;
  const solve = `${contextStringsCode('__texts')}
const isChild = typeof __rlm === 'object' && __rlm !== null && __rlm.depth > 0;
let answer;
if (isChild) {
  const match = new RegExp(${JSON.stringify(pattern)}).exec(__texts.join('\\n'));
  answer = match ? match[1] : 'NONE';
} else {
  const lines = __texts.flatMap((text) => text.split('\\n'));
  const size = Math.ceil(lines.length / ${parts});
  const pieces = [];
  for (let start = 0; start < lines.length; start += size) pieces.push(lines.slice(start, start + size).join('\\n'));
  const results = [];
  for (const piece of pieces) results.push(await rlm_query(${JSON.stringify(prompt)}, { context: piece }));
  print('children said:', JSON.stringify(results));
  answer = results.map((result) => String(result).trim()).find((result) => result !== 'NONE' && !result.startsWith('Error')) ?? 'NOT FOUND';
}
print('answer:', answer);`;

  return function delegateToChildPolicy(request) {
    const body = subCallBody(request, KIND);
    if (body !== undefined) return regex.exec(body)?.[1] ?? 'NONE';
    return loopReply(request, solve);
  };
}
