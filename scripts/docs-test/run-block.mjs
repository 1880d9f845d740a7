// Runs one runnable README block as a reader would: shell blocks in bash from the README's
// directory, JavaScript and TypeScript blocks as an ES module that resolves packages the way the
// README's own package does.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';

/** Generous: a shell block may run `npm start`, which installs and builds on a cold machine. */
export const BLOCK_TIMEOUT_MS = 20 * 60_000;

/** The directory (beside the README, git-ignored) where code blocks are written to run. */
export const CODE_DIR = '.docs-test';

function runProcess(command, args, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}\n` });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The block as an ES module: TypeScript is stripped of its types (checking them is tsc's job). */
function toModule({ kind, code }) {
  if (kind !== 'typescript') return code;
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

/**
 * Runs `block` of the README at `readmePath`; resolves to `{ ok, reason, stdout, stderr }`.
 * `scratch` is a directory for the block's own files (code blocks run there, so what they write
 * lands there); `env` is the environment every block shares.
 */
export async function runBlock(block, { readmePath, scratch, env }) {
  const readmeDir = dirname(readmePath);
  let result;
  if (block.kind === 'shell') {
    result = await runProcess('bash', ['-euo', 'pipefail', '-c', block.code], {
      cwd: readmeDir,
      env,
    });
  } else {
    // Written beside the README, so `@rlm/…` and the package's dependencies resolve as they do
    // for the package itself; run from a scratch directory, so files it writes stay out of the tree.
    const codeDir = join(readmeDir, CODE_DIR);
    mkdirSync(codeDir, { recursive: true });
    const file = join(codeDir, `line-${block.line}.mjs`);
    writeFileSync(file, toModule(block));
    const cwd = mkdtempSync(join(scratch, `line-${block.line}-`));
    result = await runProcess(process.execPath, [file], { cwd, env });
  }
  if (result.code !== 0) {
    const how = result.signal ?? (result.code === null ? 'did not start' : `exit ${result.code}`);
    return { ok: false, reason: how, ...result };
  }
  if (block.options.stdout === 'json') {
    try {
      JSON.parse(result.stdout);
    } catch (error) {
      return { ok: false, reason: `stdout is not one JSON value (${error.message})`, ...result };
    }
  }
  return { ok: true, ...result };
}
