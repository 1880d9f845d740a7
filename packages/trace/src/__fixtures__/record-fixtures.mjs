// Records the trajectories in this folder with the real executor and scripted models. @rlm/trace
// cannot depend on @rlm/executor (the executor depends on it), so its tests read recordings. To
// record them again after a format change: build, then from packages/executor run
//   cp ../trace/src/__fixtures__/record-fixtures.mjs . && node record-fixtures.mjs ../trace/src/__fixtures__; rm record-fixtures.mjs
import { writeFileSync } from 'node:fs';
import { createRLM, memoryTrajectorySink } from '@rlm/executor';
import { scriptedModel } from '@rlm/testkit';

const out = process.argv[2];
const repl = (code, prose = 'Next step:') => `${prose}\n\`\`\`repl\n${code}\n\`\`\``;
const turnOf = (request) => request.messages.filter((m) => m.role === 'assistant').length;
const HOSTILE = `<script>alert("x")</script> & 'quotes'`;

async function record(name, { model, maxDepth = 2, context, query }) {
  const sink = memoryTrajectorySink();
  let t = 1_700_000_000_000;
  const rlm = createRLM({
    model, maxDepth, isolation: 'inline', trajectory: sink,
    now: () => (t += 25), generateId: () => `${name}-root`,
  });
  const result = await rlm.completion(context, query === undefined ? {} : { query });
  writeFileSync(`${out}/${name}.jsonl`, sink.records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.log(name, result.status, result.answer);
}

await record('nested-run', {
  context: 'the root context',
  query: 'What is in it?',
  model: scriptedModel((request) => {
    if (request.system === undefined) return 'sub reply';
    const isChild = request.messages[0]?.content.includes('string of 5 characters') ?? false;
    const turn = turnOf(request);
    if (isChild) return turn === 0 ? repl('const n = context.length') : 'FINAL_VAR(n)';
    return turn === 0
      ? repl('const a = await llm_query("ask")\nconst r = await rlm_query("child", { context: "a b c" })\nprint(a, r)')
      : `${repl('undefinedFn()')}\nFINAL(done)`;
  }),
});
await record('child-run', {
  context: 'the root context',
  model: scriptedModel((request) => {
    const turn = turnOf(request);
    if (request.messages[0]?.content.includes('string of 5 characters')) return 'FINAL(child)';
    return turn === 0 ? repl('const r = await rlm_query("go", { context: "child" })\nprint(r)') : 'FINAL_VAR(r)';
  }),
});
await record('hostile-run', {
  context: 'the root context',
  query: `q ${HOSTILE}`,
  model: scriptedModel((request) =>
    turnOf(request) === 0 ? repl(`print(${JSON.stringify(HOSTILE)})`) : `FINAL(${HOSTILE})`),
});
await record('simple-run', {
  context: 'the root context',
  model: scriptedModel(['```repl\nprint(1)\n```', 'FINAL(1)']),
});
