// Records format-3-groups.jsonl: a run whose 40 `llm_query_batched` prompts carry short slices of
// its context, written by `jsonlFileSink` in trajectory format 3 (packed lines, slices by absolute
// offset, sub-call lines in Brotli groups). Recorded once with the build of main at c5ddd27, the
// last writer of format 3, so later readers are checked against a file an older build wrote:
//   node record-format-3.mjs <built checkout of c5ddd27> <this folder>
// The test (format-3-file.test.ts) rebuilds the same context with `formatThreeContext`.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const [checkout, out] = process.argv.slice(2);
const { createRLM } = await import(join(checkout, 'packages/executor/dist/index.js'));
const { scriptedModel } = await import(join(checkout, 'packages/testkit/dist/index.js'));

/** 400 distinct lines of 59 characters (the same formula as the test's). */
const context = Array.from({ length: 400 }, (_, line) =>
  `ticket ${line} ${(line * 7919).toString(36)} ${line % 4 === 0 ? 'billing refund' : 'shipping delay'}`.padEnd(59, '.'),
).join('\n');

const code = [
  "const lines = context.split('\\n')",
  'const prompts = []',
  "for (let i = 0; i < lines.length; i += 10) prompts.push('Label each ticket below, one label a line:\\n' + lines.slice(i, i + 10).join('\\n'))",
  'const rs = await llm_query_batched(prompts)',
  "print(rs.filter((r) => r.includes('billing')).length)",
].join('\n');
const turnOf = (request) => request.messages.filter((m) => m.role === 'assistant').length;
const model = scriptedModel((request) => {
  if (request.system === undefined) {
    const body = request.messages.at(-1).content.split('\n').slice(1);
    return body.map((line) => (line.includes('billing') ? 'billing' : 'shipping')).join('\n');
  }
  return turnOf(request) === 0 ? `Next step:\n\`\`\`repl\n${code}\n\`\`\`` : 'FINAL_VAR(rs)';
});
let t = 1_700_000_000_000;
const dir = join(out, 'format-3-tmp');
const rlm = createRLM({
  model, isolation: 'inline', maxConcurrency: 4, trajectory: { dir },
  now: () => (t += 25), generateId: () => 'format-3-root',
});
const result = await rlm.completion(context, { query: 'Which tickets are about billing?' });
const [file] = readdirSync(dir);
renameSync(join(dir, file), join(out, 'format-3-groups.jsonl'));
rmSync(dir, { recursive: true });
console.log(result.status, result.answer.slice(0, 40));
