import { DEFAULT_LABEL_KEYWORDS } from '../tasks/labelled-records.js';
import { contextStringsCode } from './context-strings-code.js';
import { loopReply, type Policy, subCallBody, subCallTag } from './policy.js';

export interface ChunkAndAggregateOptions {
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
 * `FINAL_VAR(answer)`.
 *
 * @example
 * const model = scriptedModel(policies.chunkAndAggregate({ target: 'billing' }));
 */
export function chunkAndAggregate({
  labels = DEFAULT_LABEL_KEYWORDS,
  target,
  batchSize = 10,
}: ChunkAndAggregateOptions = {}): Policy {
  const names = Object.keys(labels);
  const header = `${subCallTag(KIND)} Label each record below as one of: ${names.join(', ')}. One label per line, in order.`;
  const solve = `${contextStringsCode('__texts')}
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
    return loopReply(request, solve);
  };
}
