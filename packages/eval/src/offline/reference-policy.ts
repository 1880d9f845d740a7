import type { JsonValue, ReplLanguage } from '@rlm/protocol';
import {
  contextStringsCode,
  lastUserText,
  loopReply,
  type Policy,
  type PolicyRequest,
  pythonContextStringsCode,
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
/** Sub-calls of the Python reference policy that combine the partial results. */
const REDUCE_KIND = 'eval-reduce';
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
 * (`NOT_A_BENCHMARK_QUESTION`). With a task of another benchmark it replies `UNKNOWN`. With
 * `language: 'python'` the code is Python and the reduce step is one more sub-call (the solvers
 * are JavaScript functions, answered on the host).
 */
export function referencePolicy(
  task?: EvalTask,
  { language = 'javascript' }: { language?: ReplLanguage } = {},
): Policy {
  if (task === undefined) return referenceQuestionPolicy(language);
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
    const partials = subCallBody(request, REDUCE_KIND);
    if (partials !== undefined) return solver.reduce(JSON.parse(partials) as string[], params);
    return language === 'python'
      ? loopReply(request, pythonSolveCode(solver, params), 'python')
      : loopReply(request, solveCode(solver, params));
  };
}

/** The task-free policy: the question comes from the root's turn prompts, the parameters of a sub-call from its header. */
function referenceQuestionPolicy(language: ReplLanguage): Policy {
  return function referenceQuestionReply(request) {
    const subCallAnswer = answerSubCall(request);
    if (subCallAnswer !== undefined) return subCallAnswer;
    const question = questionOf(request);
    const meta = question === undefined ? undefined : recognizeQuestion(question);
    const solver = meta === undefined ? undefined : REFERENCE_SOLVERS[meta.benchmark];
    if (meta === undefined || solver === undefined) return NOT_A_BENCHMARK_QUESTION;
    const params = solverParams(meta);
    return language === 'python'
      ? loopReply(request, pythonSolveCode(solver, params, { paramsInHeader: true }), 'python')
      : loopReply(request, solveCode(solver, params, { paramsInHeader: true }));
  };
}

/** Answers a map or (Python) reduce sub-call of the task-free policy; undefined for other requests. */
function answerSubCall(request: PolicyRequest): string | undefined {
  const map = subCallWithParams(request, KIND);
  const sub = map ?? subCallWithParams(request, REDUCE_KIND);
  if (sub === undefined) return undefined;
  const solver = REFERENCE_SOLVERS[String(sub.params['benchmark'])];
  if (solver === undefined) return 'UNKNOWN';
  return map === undefined
    ? solver.reduce(JSON.parse(sub.body) as string[], sub.params)
    : solver.map(sub.body, sub.params);
}

/** A sub-call of `kind` whose header line carries the solver parameters as JSON (task-free prompts). */
function subCallWithParams(
  request: PolicyRequest,
  kind: string,
): { body: string; params: Record<string, JsonValue> } | undefined {
  const body = subCallBody(request, kind);
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

// JSON string literals are valid Python string literals, so JSON.stringify quotes text for both.
function pythonSolveCode(
  solver: ReferenceSolver,
  params: Record<string, JsonValue>,
  { paramsInHeader = false }: { paramsInHeader?: boolean } = {},
): string {
  const carried = paramsInHeader ? ` ${JSON.stringify(params)}` : '';
  const map = JSON.stringify(
    `${subCallTag(KIND)} Extract what the question needs from this part of the context.${carried}\n`,
  );
  const reduce = JSON.stringify(
    `${subCallTag(REDUCE_KIND)} Combine these partial results (JSON) into the answer.${carried}\n`,
  );
  const gather = solver.chunkable
    ? `
__chunks = []
__current = ''
for __line in __text.split('\\n'):
    if len(__current) + len(__line) + 1 > ${REFERENCE_CHUNK_CHARS} and __current != '':
        __chunks.append(__current)
        __current = ''
    __current += __line + '\\n'
if __current != '':
    __chunks.append(__current)
print('mapping', len(__chunks), 'chunks')
__partials = llm_query_batched([${map} + chunk for chunk in __chunks])`
    : `
__partials = [llm_query(${map} + __text)]`;
  return `${pythonContextStringsCode('__strings')}
import json
__text = '\\n\\n'.join(__strings)
${gather}
answer = llm_query(${reduce} + json.dumps(__partials))
print('answer:', answer)`;
}
