// One set-up step of workspace.mjs, announced with its elapsed time: the first `npm start` on a
// fresh clone takes minutes, and a silent terminal for minutes looks like a hang.
import { spawn } from 'node:child_process';

/** How often a step without visible progress of its own says it is still running. */
export const HEARTBEAT_MS = 15_000;

/** How often a step with a `progress` poller checks it. */
const PROGRESS_POLL_MS = 500;

/** `4.2s`, `1m04s`. */
export function formatElapsed(ms) {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

/** Writes one line of workspace.mjs's own output; stderr, so stdout stays the job's (`--json`). */
export function say(text) {
  process.stderr.write(`workspace.mjs: ${text}\n`);
}

/**
 * Runs one step and resolves to its exit status. `label` is `[2/3] install`, `what` what it does.
 * On a terminal a step with `liveProgress` draws its own progress on stderr (pnpm's reporter);
 * otherwise its output is kept, shown only if it fails, and a heartbeat line is printed every
 * HEARTBEAT_MS, so a log off a terminal gets a few plain lines, never a redrawn bar.
 */
export function runStep({ label, what, command, args, env, cwd, liveProgress = false, progress }) {
  const started = Date.now();
  // A step that can tell what it finished (the build, package by package) says so as it happens.
  const poll = progress?.({ startedAt: started });
  const report = () => {
    for (const line of poll?.() ?? []) say(`${label} ${line}`);
  };
  const progressTimer = poll === undefined ? undefined : setInterval(report, PROGRESS_POLL_MS);
  const live = liveProgress && process.stderr.isTTY === true;
  say(`${label}: ${what} …`);
  const child = spawn(command, args, {
    cwd,
    env,
    // The child's stdout goes to our stderr too: stdout belongs to the job (`rlm run --json`).
    stdio: live ? ['ignore', 2, 2] : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const heartbeat = live
    ? undefined
    : setInterval(
        () => say(`${label}: still running (${formatElapsed(Date.now() - started)})`),
        HEARTBEAT_MS,
      );
  return new Promise((resolve) => {
    child.once('error', (error) => {
      clearInterval(heartbeat);
      clearInterval(progressTimer);
      say(`${label}: could not start ${command}: ${error.message}`);
      resolve(1);
    });
    child.once('close', (code, signal) => {
      clearInterval(heartbeat);
      clearInterval(progressTimer);
      if (code === 0) report();
      const elapsed = formatElapsed(Date.now() - started);
      if (code === 0) {
        say(`${label}: done in ${elapsed}`);
        resolve(0);
        return;
      }
      if (output !== '') process.stderr.write(output.endsWith('\n') ? output : `${output}\n`);
      say(
        `${label}: failed (${signal ?? `exit ${code}`}) after ${elapsed}: ${command} ${args.join(' ')}`,
      );
      resolve(code ?? 1);
    });
  });
}
