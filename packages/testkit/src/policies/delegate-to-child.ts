import { contextStringsCode, pythonContextStringsCode } from './context-strings-code.js';
import { DEFAULT_NEEDLE_PATTERN } from './needle-finder.js';
import {
  loopReply,
  type Policy,
  type PolicyLanguageOptions,
  subCallBody,
  subCallTag,
} from './policy.js';

export interface DelegateToChildOptions extends PolicyLanguageOptions {
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
 * the piece; the policy answers that from the prompt text. It writes JavaScript, or Python with
 * `language: 'python'` (`rlm_query(prompt, context=piece)`, `__rlm['depth']`).
 *
 * @example
 * const model = scriptedModel(policies.delegateToChild());
 */
export function delegateToChild({
  pattern = DEFAULT_NEEDLE_PATTERN,
  parts = 2,
  language = 'javascript',
}: DelegateToChildOptions = {}): Policy {
  const regex = new RegExp(pattern);
  const prompt = `${subCallTag(KIND)} Find the needle in your context and reply with its value only, or NONE.`;
  const solve =
    language === 'python'
      ? pythonSolve({ pattern, parts, prompt })
      : javascriptSolve({ pattern, parts, prompt });
  return function delegateToChildPolicy(request) {
    const body = subCallBody(request, KIND);
    if (body !== undefined) return regex.exec(body)?.[1] ?? 'NONE';
    return loopReply(request, solve, language);
  };
}

interface SolveOptions {
  pattern: string;
  parts: number;
  prompt: string;
}

function javascriptSolve({ pattern, parts, prompt }: SolveOptions): string {
  return `${contextStringsCode('__texts')}
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
}

// JSON string literals are valid Python string literals, so JSON.stringify quotes text for both.
function pythonSolve({ pattern, parts, prompt }: SolveOptions): string {
  return `${pythonContextStringsCode('__texts')}
import json, re
if __rlm['depth'] > 0:
    __match = re.search(${JSON.stringify(pattern)}, '\\n'.join(__texts))
    answer = __match.group(1) if __match else 'NONE'
else:
    __lines = [line for text in __texts for line in text.split('\\n')]
    __size = -(-len(__lines) // ${parts})
    __pieces = ['\\n'.join(__lines[start:start + __size]) for start in range(0, len(__lines), __size)]
    results = [rlm_query(${JSON.stringify(prompt)}, context=piece) for piece in __pieces]
    print('children said:', json.dumps(results))
    __found = [result.strip() for result in results if result.strip() != 'NONE' and not result.strip().startswith('Error')]
    answer = __found[0] if __found else 'NOT FOUND'
print('answer:', answer)`;
}
