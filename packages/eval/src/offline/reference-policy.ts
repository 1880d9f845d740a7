import type { JsonValue } from '@rlm/protocol';
import { lastUserText, loopReply, type Policy, subCallBody, subCallTag } from '@rlm/testkit';
import { RARE_LABELS, RECORD_LABELS } from '../generators/support-records.js';
import type { EvalTask } from '../task/eval-task.js';
import { BASE_SYSTEM_PROMPT, baseContextOf } from './base-prompt.js';
import { REFERENCE_SOLVERS, type ReferenceSolver } from './reference-solvers.js';

const KIND = 'eval-map';
/** Characters of context per sub-call of the reference policy. */
export const REFERENCE_CHUNK_CHARS = 20_000;

/** The parameters a reference solver gets: the task's metadata plus the label phrase lists. */
export function solverParams(task: EvalTask): Record<string, JsonValue> {
  const labels =
    task.meta['benchmark'] === 'pairs' ? { ...RECORD_LABELS, ...RARE_LABELS } : RECORD_LABELS;
  return { ...task.meta, labels: labels as unknown as JsonValue };
}

/**
 * The offline stand-in for a capable model on the built-in benchmarks. As an RLM root it writes
 * real REPL code: split the context into line-aligned chunks, map each with
 * `llm_query_batched` (answering those sub-calls itself), reduce in code, `FINAL_VAR(answer)`.
 * As the base system it applies the same solver to whatever context was pasted into the prompt,
 * so truncation costs it exactly what it would cost a real model that reads perfectly.
 * Tasks from other benchmarks get `UNKNOWN`.
 */
export function referencePolicy(task: EvalTask): Policy {
  const solver = REFERENCE_SOLVERS[String(task.meta['benchmark'])];
  const params = solverParams(task);
  return function referencePolicyReply(request) {
    if (solver === undefined) return 'UNKNOWN';
    if (request.system === BASE_SYSTEM_PROMPT) {
      const context = baseContextOf(lastUserText(request)) ?? '';
      return solver.reduce([solver.map(context, params)], params);
    }
    const body = subCallBody(request, KIND);
    if (body !== undefined) return solver.map(body, params);
    return loopReply(request, solveCode(solver, params));
  };
}

function solveCode(solver: ReferenceSolver, params: Record<string, JsonValue>): string {
  const header = `${subCallTag(KIND)} Extract what the question needs from this part of the context.`;
  const gather = solver.chunkable
    ? `
const __chunks = [];
let __current = '';
for (const line of __text.split('\\n')) {
  if (__current.length + line.length + 1 > ${REFERENCE_CHUNK_CHARS} && __current !== '') {
    __chunks.push(__current);
    __current = '';
  }
  __current += line + '\\n';
}
if (__current !== '') __chunks.push(__current);
print('mapping', __chunks.length, 'chunks');
const __partials = await llm_query_batched(__chunks.map((chunk) => ${JSON.stringify(`${header}\n`)} + chunk));`
    : `
const __partials = [__map(__text, __params)];`;
  return `
const __params = ${JSON.stringify(params)};
const __map = ${solver.map.toString()};
const __reduce = ${solver.reduce.toString()};
const __text = Array.isArray(context) ? context.map((part) => String(part)).join('\\n\\n') : String(context);
${gather}
const answer = __reduce(__partials, __params);
print('answer:', answer);`;
}
