// Python is opt-in: what @rlm/executor does when installed alone, without @rlm/sandbox-python.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckFailed, run } from './run-checked.mjs';

/**
 * @rlm/executor installed alone (with only what it depends on) brings neither @rlm/sandbox-python
 * nor Pyodide, runs JavaScript REPLs, and refuses `repl: 'python'` with a `config.invalid` error
 * that names the package to install. Returns what passed.
 */
export async function checkExecutorWithoutPython({ project }) {
  for (const absent of ['pyodide', '@rlm/sandbox-python']) {
    if (existsSync(join(project, 'node_modules', absent))) {
      throw new CheckFailed(
        `@rlm/executor alone: npm installed ${absent}, which only Python users need`,
      );
    }
  }
  const script = [
    "const { createRLM } = await import('@rlm/executor');",
    'const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };',
    "const fence = '\\x60'.repeat(3);",
    "const text = fence + 'repl\\nconst n = context.length\\n' + fence + '\\nFINAL_VAR(n)';",
    "const reply = { text, usage, stopReason: 'end_turn', model: 'check/model' };",
    "const model = { id: 'check/model', complete: async () => reply };",
    "const js = await createRLM({ model }).completion('abcd');",
    "if (js.answer !== '4') throw new Error('a JavaScript run answered ' + JSON.stringify(js));",
    'try {',
    "  await createRLM({ model, repl: 'python' }).completion('abcd');",
    "  throw new Error('a Python run started without @rlm/sandbox-python');",
    '} catch (error) {',
    "  if (error.code !== 'config.invalid' || !error.message.includes('npm install @rlm/sandbox-python')) throw error;",
    '}',
  ].join('\n');
  // A file, not `-e`: the sandbox's worker thread inherits the process's flags.
  writeFileSync(join(project, 'check-without-python.mjs'), script);
  await run(process.execPath, ['check-without-python.mjs'], {
    cwd: project,
    label: '@rlm/executor alone: a JavaScript run, and Python refused with config.invalid',
  });
  return ["no Pyodide installed; JavaScript runs; repl: 'python' names @rlm/sandbox-python"];
}
