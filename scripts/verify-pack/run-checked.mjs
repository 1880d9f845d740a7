// How verify-pack runs a command: quiet, failing with its output, and (async) alongside others.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A failed check: verify-pack prints its message, without a stack trace, and exits 1. */
export class CheckFailed extends Error {}

export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Runs `command`, resolves to its stdout, and rejects with CheckFailed carrying all its output if
 * it fails. Asynchronous, so verify-pack can check several packages at once: most of a check is
 * waiting on npm and on child processes, not on this one.
 */
export function run(command, args, { cwd, label, env = {} }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        npm_config_loglevel: 'error',
        npm_config_update_notifier: 'false',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', (error) =>
      reject(new CheckFailed(`${label}: could not start ${command}: ${error.message}`)),
    );
    child.once('close', (status, signal) => {
      if (status === 0) return resolve(stdout);
      const output = `${stdout}${stderr}`.trim();
      reject(new CheckFailed(`${label} failed (${signal ?? `exit ${status}`}):\n${output}`));
    });
  });
}
