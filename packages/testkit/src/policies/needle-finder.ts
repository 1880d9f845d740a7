import { contextStringsCode, pythonContextStringsCode } from './context-strings-code.js';
import {
  loopReply,
  type Policy,
  type PolicyLanguageOptions,
  subCallBody,
  subCallTag,
} from './policy.js';

/** The needle `needleHaystack` hides: its first capture group is the answer. */
export const DEFAULT_NEEDLE_PATTERN = 'magic number is (\\d+)';

export interface NeedleFinderOptions extends PolicyLanguageOptions {
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
 * `FINAL_VAR(answer)`. It writes JavaScript, or Python with `language: 'python'`.
 *
 * @example
 * const model = scriptedModel(policies.needleFinder());
 * const pythonModel = scriptedModel(policies.needleFinder({ language: 'python' }));
 */
export function needleFinder({
  pattern = DEFAULT_NEEDLE_PATTERN,
  chunkChars = 20_000,
  useGrep = false,
  language = 'javascript',
}: NeedleFinderOptions = {}): Policy {
  const regex = new RegExp(pattern);
  const tag = subCallTag(KIND);
  const header = `${tag} Reply with the value of the needle if this text contains it, else NONE.`;
  const solve =
    language === 'python'
      ? pythonSolve({ pattern, chunkChars, useGrep, header })
      : javascriptSolve({ pattern, chunkChars, useGrep, header });
  return function needleFinderPolicy(request) {
    const body = subCallBody(request, KIND);
    if (body !== undefined) return regex.exec(body)?.[1] ?? 'NONE';
    return loopReply(request, solve, language);
  };
}

interface SolveOptions {
  pattern: string;
  chunkChars: number;
  useGrep: boolean;
  header: string;
}

function javascriptSolve({ pattern, chunkChars, useGrep, header }: SolveOptions): string {
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
  return `${gather}
const replies = await llm_query_batched(chunks.map((chunk) => ${JSON.stringify(`${header}\n`)} + chunk));
const hits = replies.map((reply) => reply.trim()).filter((reply) => reply !== 'NONE' && !reply.startsWith('Error'));
const answer = hits[0] ?? 'NOT FOUND';
print('answer:', answer);`;
}

// JSON string literals are valid Python string literals, so JSON.stringify quotes text for both.
function pythonSolve({ pattern, chunkChars, useGrep, header }: SolveOptions): string {
  const gather = useGrep
    ? `
__found = grep(${JSON.stringify(pattern)}, max=20)
chunks = [match['text'] for match in __found['matches']]
print('grep found', __found['total'], 'candidate lines')`
    : `${pythonContextStringsCode('__texts')}
chunks = []
__current = ''
for __line in [line for text in __texts for line in text.split('\\n')]:
    if len(__current) + len(__line) + 1 > ${chunkChars} and __current != '':
        chunks.append(__current)
        __current = ''
    __current += __line + '\\n'
if __current != '':
    chunks.append(__current)
print('searching', len(chunks), 'chunks')`;
  return `${gather}
replies = llm_query_batched([${JSON.stringify(`${header}\n`)} + chunk for chunk in chunks])
hits = [reply.strip() for reply in replies if reply.strip() != 'NONE' and not reply.strip().startswith('Error')]
answer = hits[0] if hits else 'NOT FOUND'
print('answer:', answer)`;
}
