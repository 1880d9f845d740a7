import { contextStringsCode } from './context-strings-code.js';
import { loopReply, type Policy, subCallBody, subCallTag } from './policy.js';

/** The needle `needleHaystack` hides: its first capture group is the answer. */
export const DEFAULT_NEEDLE_PATTERN = 'magic number is (\\d+)';

export interface NeedleFinderOptions {
  /** Regular-expression source whose first group is the answer. @default DEFAULT_NEEDLE_PATTERN */
  pattern?: string;
  /** Characters per chunk sent to `llm_query_batched` (cut at line ends). @default 20_000 */
  chunkChars?: number;
  /** Find candidate lines with the host `grep` helper instead of chunking in plain JS. @default false */
  useGrep?: boolean;
}

const KIND = 'needle';

/**
 * A policy that finds a needle in a long context: it inspects the context, splits every string in
 * it (a string, or the strings of an array or object context) into line-aligned chunks (or greps for candidate lines), asks `llm_query_batched` to look at each,
 * answers those sub-calls itself by matching `pattern` in the prompt, and finishes with
 * `FINAL_VAR(answer)`.
 *
 * @example
 * const model = scriptedModel(policies.needleFinder());
 */
export function needleFinder({
  pattern = DEFAULT_NEEDLE_PATTERN,
  chunkChars = 20_000,
  useGrep = false,
}: NeedleFinderOptions = {}): Policy {
  const regex = new RegExp(pattern);
  const tag = subCallTag(KIND);
  const header = `${tag} Reply with the value of the needle if this text contains it, else NONE.`;
  const gather = useGrep
    ? `
const __found = await grep(${JSON.stringify(pattern)}, { max: 20 });
const chunks = __found.matches.map((match) => match.text);
print('grep found', __found.total, 'candidate lines');`
    : `${contextStringsCode('__texts')}
const chunks = [];
let __current = '';
for (const line of __texts.flatMap((text) => text.split('\\n'))) {
  if (__current.length + line.length + 1 > ${chunkChars} && __current !== '') {
    chunks.push(__current);
    __current = '';
  }
  __current += line + '\\n';
}
if (__current !== '') chunks.push(__current);
print('searching', chunks.length, 'chunks');`;
  const solve = `${gather}
const replies = await llm_query_batched(chunks.map((chunk) => ${JSON.stringify(`${header}\n`)} + chunk));
const hits = replies.map((reply) => reply.trim()).filter((reply) => reply !== 'NONE' && !reply.startsWith('Error'));
const answer = hits[0] ?? 'NOT FOUND';
print('answer:', answer);`;

  return function needleFinderPolicy(request) {
    const body = subCallBody(request, KIND);
    if (body !== undefined) return regex.exec(body)?.[1] ?? 'NONE';
    return loopReply(request, solve);
  };
}
