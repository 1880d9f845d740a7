import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../cli-io.js';
import type { RunEngine, RunRequest } from '../engine/run-engine.js';
import { runCli } from '../run-cli.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'text');
});
afterEach(() => sandbox.dispose());

class ExitNow extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * An engine whose run never finishes, even when cancelled: what a stuck provider looks like.
 * With `turnsFinished`, the root reports that many finished turns before it gets stuck.
 */
function stuckEngine(turnsFinished = 0): RunEngine & { requests: RunRequest[] } {
  const requests: RunRequest[] = [];
  return {
    requests,
    run: (request) => {
      requests.push(request);
      for (let iteration = 0; iteration < turnsFinished; iteration += 1) {
        request.onEvent({
          v: 1,
          type: 'iteration-end',
          runId: request.runId ?? 'run',
          parentRunId: null,
          rootRunId: request.runId ?? 'run',
          depth: 0,
          at: 0,
          iteration,
          response: '',
          finalAnswer: null,
          durationMs: 1,
        });
      }
      return new Promise(() => {});
    },
    findResumable: () => new Promise(() => {}),
    resume: () => new Promise(() => {}),
  };
}

describe('Ctrl-C handling of rlm run', () => {
  async function interruptedRun(turnsFinished: number) {
    let stderr = '';
    const handlers: (() => void)[] = [];
    const exits: number[] = [];
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: {
        write: (text: string) => {
          stderr += text;
          return true;
        },
      },
      readStdin: async () => '',
      // rlm run checks the model before reading the context: an offline one needs no key.
      env: { RLM_MODEL: 'testkit:needle-finder' },
      cwd: sandbox.dir,
      paths: { config: join(sandbox.dir, 'config'), data: join(sandbox.dir, 'data') },
      onInterrupt: (handler) => {
        handlers.push(handler);
        return () => handlers.splice(handlers.indexOf(handler), 1);
      },
      exitNow: (code) => {
        exits.push(code);
        throw new ExitNow(code);
      },
      now: () => 0,
    };
    const engine = stuckEngine(turnsFinished);
    void runCli(['run', 'q', '--context', 'notes.txt'], io, { engine, version: '0.0.0' });
    // Generous: the run first loads the model resolver (the executor and its SDKs) to check the id.
    await expect.poll(() => engine.requests.length, { timeout: 60_000 }).toBe(1);
    const signal = engine.requests[0]?.signal;
    handlers[0]?.();
    expect(signal?.aborted).toBe(true);
    expect(stderr).toContain('Cancelling… (press Ctrl-C again to exit at once)');
    expect(exits).toEqual([]);
    expect(() => handlers[0]?.()).toThrow(ExitNow);
    expect(exits).toEqual([130]);
    return { stderr, runId: engine.requests[0]?.runId ?? '' };
  }

  it('cancels on the first Ctrl-C, shows the way back once a turn has finished, and exits with 130 on the second', async () => {
    const { stderr, runId } = await interruptedRun(1);
    // A second Ctrl-C leaves no time for a report: the way back is shown at the first.
    expect(stderr).toContain(`To continue it later: rlm resume ${runId} -c notes.txt`);
  });

  it('offers no resume command before the first turn has finished (there is no checkpoint yet)', async () => {
    const { stderr } = await interruptedRun(0);
    expect(stderr).not.toContain('rlm resume');
    expect(stderr).toContain('Nothing to continue later: no turn has finished yet');
  });
});
