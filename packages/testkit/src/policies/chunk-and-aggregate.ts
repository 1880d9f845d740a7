import { DEFAULT_LABEL_KEYWORDS } from '../tasks/labelled-records.js';
import { contextStringsCode, pythonContextStringsCode } from './context-strings-code.js';
import {
  loopReply,
  type Policy,
  type PolicyLanguageOptions,
  subCallBody,
  subCallTag,
} from './policy.js';

export interface ChunkAndAggregateOptions extends PolicyLanguageOptions {
  /** Labels and the keywords that identify them. @default DEFAULT_LABEL_KEYWORDS */
  labels?: Readonly<Record<string, readonly string[]>>;
  /** The label whose count is the answer; without it the answer is the JSON of all counts. */
  target?: string;
  /** Records per `llm_query_batched` prompt. @default 10 */
  batchSize?: number;
}

const KIND = 'classify';

/**
 * A policy that aggregates over records: it splits the context (an array of records, or one
 * record per line of every string in a string or object context) into batches, asks `llm_query_batched` to label each record, answers those sub-calls
 * itself from the keywords in each record, counts the labels in code and finishes with
 * `FINAL_VAR(answer)`. It writes JavaScript, or Python with `language: 'python'`.
 *
 * @example
 * const model = scriptedModel(policies.chunkAndAggregate({ target: 'billing' }));
 */
export function chunkAndAggregate({
  labels = DEFAULT_LABEL_KEYWORDS,
  target,
  batchSize = 10,
  language = 'javascript',
}: ChunkAndAggregateOptions = {}): Policy {
  const names = Object.keys(labels);
  const header = `${subCallTag(KIND)} Label each record below as one of: ${names.join(', ')}. One label per line, in order.`;
  const solve =
    language === 'python'
      ? pythonSolve({ header, target, batchSize })
      : javascriptSolve({ header, target, batchSize });

  const classify = (record: string): string => {
    const lower = record.toLowerCase();
    return (
      names.find((name) =>
        (labels[name] ?? []).some((keyword) => lower.includes(keyword.toLowerCase())),
      ) ?? 'other'
    );
  };

  return function chunkAndAggregatePolicy(request) {
    const body = subCallBody(request, KIND);
    if (body !== undefined) {
      return body
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map(classify)
        .join('\n');
    }
    return loopReply(request, solve, language);
  };
}

interface SolveOptions {
  header: string;
  target: string | undefined;
  batchSize: number;
}

function javascriptSolve({ header, target, batchSize }: SolveOptions): string {
  return `${contextStringsCode('__texts')}
const items = Array.isArray(context) ? context : __texts.flatMap((text) => text.split('\\n')).filter((line) => line.trim() !== '');
const texts = items.map((item) => (typeof item === 'string' ? item : (item.text ?? JSON.stringify(item))));
const prompts = [];
for (let start = 0; start < texts.length; start += ${batchSize}) {
  prompts.push(${JSON.stringify(`${header}\n`)} + texts.slice(start, start + ${batchSize}).join('\\n'));
}
const replies = await llm_query_batched(prompts);
const counts = {};
for (const reply of replies) {
  for (const label of reply.split('\\n').map((line) => line.trim()).filter((line) => line !== '')) {
    counts[label] = (counts[label] ?? 0) + 1;
  }
}
print('counts:', JSON.stringify(counts));
const answer = ${target === undefined ? 'JSON.stringify(counts)' : `String(counts[${JSON.stringify(target)}] ?? 0)`};`;
}

// JSON string literals are valid Python string literals, so JSON.stringify quotes text for both.
// Counts are dumped without spaces, as JavaScript's JSON.stringify writes them.
function pythonSolve({ header, target, batchSize }: SolveOptions): string {
  return `${pythonContextStringsCode('__strings')}
import json
__items = context if isinstance(context, list) else [line for text in __strings for line in text.split('\\n') if line.strip() != '']
__texts = [item if isinstance(item, str) else (item['text'] if isinstance(item, dict) and item.get('text') is not None else json.dumps(item)) for item in __items]
prompts = [${JSON.stringify(`${header}\n`)} + '\\n'.join(__texts[start:start + ${batchSize}]) for start in range(0, len(__texts), ${batchSize})]
replies = llm_query_batched(prompts)
counts = {}
for reply in replies:
    for label in [line.strip() for line in reply.split('\\n') if line.strip() != '']:
        counts[label] = counts.get(label, 0) + 1
print('counts:', json.dumps(counts, separators=(',', ':')))
answer = ${target === undefined ? "json.dumps(counts, separators=(',', ':'))" : `str(counts.get(${JSON.stringify(target)}, 0))`}`;
}
