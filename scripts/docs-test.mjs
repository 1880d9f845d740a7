#!/usr/bin/env node
// The docs test: runs every code block the READMEs mark `<!-- runnable -->` (root README first,
// then packages/*, then apps/*), in order, and fails if any fails, so no README drifts from the
// code. Part of `npm test` (after the package tests) and so of .ci/run; alone: `pnpm test:docs`
// after `pnpm build`. Arguments limit it to those READMEs (`node scripts/docs-test.mjs
// packages/prompts/README.md`).
//
// Every block shares one scratch environment: npm's global prefix (so `npm link` puts `rlm` on
// the PATH in a temporary directory, not on the machine), the CLI's config directory, trajectory
// directory and run store. Shell blocks run from the README's directory, as a reader in a clone.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findRunnableBlocks, ReadmeBlockError } from './docs-test/readme-blocks.mjs';
import { CODE_DIR, runBlock } from './docs-test/run-block.mjs';
import { formatElapsed } from './workspace/run-step.mjs';
import { shellEnv } from './workspace/shell-env.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function allReadmes() {
  const inFolder = (folder) =>
    readdirSync(join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, folder, entry.name, 'README.md'))
      .filter((path) => existsSync(path))
      .sort();
  return [join(root, 'README.md'), ...inFolder('packages'), ...inFolder('apps')];
}

function scratchEnv(scratch) {
  const prefix = join(scratch, 'npm-prefix');
  mkdirSync(join(prefix, 'bin'), { recursive: true });
  return {
    // As in a reader's shell: no variables of the package manager running this script.
    ...shellEnv(process.env),
    npm_config_prefix: prefix,
    PATH: [join(prefix, 'bin'), process.env.PATH].join(delimiter),
    XDG_CONFIG_HOME: join(scratch, 'config'),
    RLM_TRAJECTORY_DIR: join(scratch, 'trajectories'),
    RLM_RUN_STORE: join(scratch, 'runs.db'),
  };
}

function indent(text) {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function reportFailure(block, result) {
  console.log(`  block:\n${indent(block.code)}`);
  if (result.stdout.trim()) console.log(`  stdout:\n${indent(result.stdout.slice(-4000))}`);
  if (result.stderr.trim()) console.log(`  stderr:\n${indent(result.stderr.slice(-4000))}`);
}

/** Runs one README's runnable blocks in order; resolves to `{ ran, failures }`. */
async function runReadme(readmePath, { scratch, env }) {
  const name = relative(root, readmePath);
  const blocks = findRunnableBlocks(readFileSync(readmePath, 'utf8'), name);
  const failures = [];
  try {
    for (const block of blocks) {
      const started = Date.now();
      const result = await runBlock(block, { readmePath, scratch, env });
      const where = `${name}:${block.line}`;
      const summary = `${where} (${block.language}, ${formatElapsed(Date.now() - started)})`;
      if (result.ok) {
        console.log(`ok   ${summary}`);
        continue;
      }
      failures.push(where);
      console.log(`FAIL ${summary}: ${result.reason}`);
      reportFailure(block, result);
    }
  } finally {
    rmSync(join(dirname(readmePath), CODE_DIR), { recursive: true, force: true });
  }
  return { ran: blocks.length, failures };
}

async function main(args) {
  const readmes = args.length > 0 ? args.map((path) => resolve(path)) : allReadmes();
  const scratch = mkdtempSync(join(tmpdir(), 'rlm-docs-test-'));
  const env = scratchEnv(scratch);
  let ran = 0;
  const failures = [];
  try {
    for (const readmePath of readmes) {
      const outcome = await runReadme(readmePath, { scratch, env });
      ran += outcome.ran;
      failures.push(...outcome.failures);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  // A docs test that ran nothing proves nothing: the markers must not silently disappear.
  if (ran === 0) {
    console.error('docs-test: no block is marked <!-- runnable --> in the READMEs it read');
    return 1;
  }
  if (failures.length > 0) {
    console.error(
      `docs-test: ${failures.length} of ${ran} runnable blocks failed: ${failures.join(', ')}`,
    );
    return 1;
  }
  console.log(`docs-test: all ${ran} runnable blocks in ${readmes.length} READMEs ran`);
  return 0;
}

try {
  // `pnpm test:docs -- README.md` passes the `--` through.
  process.exitCode = await main(process.argv.slice(2).filter((arg) => arg !== '--'));
} catch (error) {
  if (!(error instanceof ReadmeBlockError)) throw error;
  console.error(`docs-test: ${error.message}`);
  process.exitCode = 1;
}
