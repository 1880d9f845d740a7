import type { JsonValue } from '@rlm/protocol';
import {
  contextStringsCode,
  lastUserText,
  loopReply,
  type Policy,
  type PolicyRequest,
  subCallBody,
  subCallTag,
} from '@rlm/testkit';
import { RARE_LABELS, RECORD_LABELS } from '../generators/support-records.js';
import type { EvalTask } from '../task/eval-task.js';
import { BASE_SYSTEM_PROMPT, baseContextOf } from './base-prompt.js';
import { questionOf } from './question-of.js';
import { recognizeQuestion } from './recognize-question.js';
import { REFERENCE_SOLVERS, type ReferenceSolver } from './reference-solvers.js';

const KIND = 'eval-map';
/** Characters of context per sub-call of the reference policy. */
export const REFERENCE_CHUNK_CHARS = 20_000;

/** What `testkit:reference` replies, without an answer, to a question no built-in benchmark asks. */
export const NOT_A_BENCHMARK_QUESTION =
  'testkit:reference is an offline stand-in that solves only the questions of the built-in ' +
  'benchmarks (sniah, aggregate, pairs, multidoc, as rlm eval writes them), and this is not one ' +
  'of them, so it has no answer. Try testkit:needle-finder, which finds "the magic number is N".';

/** The parameters a reference solver gets: the task's metadata plus the label phrase lists. */
export function solverParams(meta: Readonly<Record<string, JsonValue>>): Record<string, JsonValue> {
  const labels =
    meta['benchmark'] === 'pairs' ? { ...RECORD_LABELS, ...RARE_LABELS } : RECORD_LABELS;
  return { ...meta, labels: labels as unknown as JsonValue };
}

/**
 * The offline stand-in for a capable model on the built-in benchmarks. As an RLM root it writes
 * real REPL code: split the context into line-aligned chunks, map each with
 * `llm_query_batched` (answering those sub-calls itself), reduce in code, `FINAL_VAR(answer)`.
 * As the base system it applies the same solver to whatever context was pasted into the prompt,
 * so truncation costs it exactly what it would cost a real model that reads perfectly.
 *
 * Without a task (a run outside `rlm eval`) it reads the question from the conversation and
 * recognises the built-in benchmarks' questions; to any other question it gives no answer
 * (`NOT_A_BENCHMARK_QUESTION`). With a task of another benchmark it replies `UNKNOWN`.
 */
export function referencePolicy(task?: EvalTask): Policy {
  if (task === undefined) return referenceQuestionPolicy();
  const solver = REFERENCE_SOLVERS[String(task.meta['benchmark'])];
  const params = solverParams(task.meta);
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

/** The task-free policy: the question comes from the root's turn prompts, the parameters of a sub-call from its header. */
function referenceQuestionPolicy(): Policy {
  return function referenceQuestionReply(request) {
    const sub = subCallWithParams(request);
    if (sub !== undefined) {
      const solver = REFERENCE_SOLVERS[String(sub.params['benchmark'])];
      return solver === undefined ? 'UNKNOWN' : solver.map(sub.body, sub.params);
    }
    const question = questionOf(request);
    const meta = question === undefined ? undefined : recognizeQuestion(question);
    const solver = meta === undefined ? undefined : REFERENCE_SOLVERS[meta.benchmark];
    if (meta === undefined || solver === undefined) return NOT_A_BENCHMARK_QUESTION;
    return loopReply(request, solveCode(solver, solverParams(meta), { paramsInHeader: true }));
  };
}

/** A sub-call whose header line carries the solver parameters as JSON (task-free prompts). */
function subCallWithParams(
  request: PolicyRequest,
): { body: string; params: Record<string, JsonValue> } | undefined {
  const body = subCallBody(request, KIND);
  if (body === undefined) return undefined;
  const header = lastUserText(request).trimStart().split('\n', 1)[0] ?? '';
  const start = header.indexOf('{');
  if (start < 0) return undefined;
  try {
    return { body, params: JSON.parse(header.slice(start)) as Record<string, JsonValue> };
  } catch {
    return undefined;
  }
}

function solveCode(
  solver: ReferenceSolver,
  params: Record<string, JsonValue>,
  { paramsInHeader = false }: { paramsInHeader?: boolean } = {},
): string {
  const instruction = 'Extract what the question needs from this part of the context.';
  const header = `${subCallTag(KIND)} ${instruction}${paramsInHeader ? ` ${JSON.stringify(params)}` : ''}`;
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
const __reduce = ${solver.reduce.toString()};${contextStringsCode('__strings')}
const __text = __strings.join('\\n\\n');
${gather}
const answer = __reduce(__partials, __params);
print('answer:', answer);`;
}
