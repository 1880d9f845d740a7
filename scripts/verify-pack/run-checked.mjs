// How verify-pack runs a command: synchronously, quiet, and failing with its output.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A failed check: verify-pack prints its message, without a stack trace, and exits 1. */
export class CheckFailed extends Error {}

export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Runs `command`, returns its stdout, and throws CheckFailed with all its output if it fails. */
export function run(command, args, { cwd, label, env = {} }) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      npm_config_loglevel: 'error',
      npm_config_update_notifier: 'false',
      ...env,
    },
  });
  if (result.error)
    throw new CheckFailed(`${label}: could not start ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new CheckFailed(`${label} failed (exit ${result.status}):\n${output}`);
  }
  return result.stdout;
}
