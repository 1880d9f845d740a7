// Prints a new src/system/baseline-solver-prompt.ts built from the sections:
//   pnpm build && node scripts/write-baseline.mjs > src/system/baseline-solver-prompt.ts
// Run it only when the baseline wording is meant to change; the pin test compares the two.
import { buildSystemPrompt } from '../dist/index.js';

const text = buildSystemPrompt({ depth: 0, maxDepth: 2, mode: 'solver' });
const IGNORE =
  '  // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript shown to the model\n';
const lines = text
  .split('\n')
  .map((line) => `${line.includes('${') ? IGNORE : ''}  ${JSON.stringify(line)},`);
const source = `/**
 * The project's baseline RLM prompt: the root solver at depth 0 with one level of children
 * (\`maxDepth: 2\`), no tools, models or drivers. It is written out in full so that a change to any
 * section shows up as a failing pin test and is made on purpose (regenerate with
 * \`node scripts/write-baseline.mjs\` after \`pnpm build\`).
 */
export const BASELINE_SOLVER_PROMPT = [
${lines.join('\n')}
].join('\\n');
`;
process.stdout.write(source);
