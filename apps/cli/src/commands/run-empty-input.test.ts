import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.dispose());

const OFFLINE = ['--model', 'testkit:needle-finder'];

function expectRefused(result: { code: number | null; stdout: string; stderr: string }): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
}

describe('rlm run refuses empty input the same way for every kind of context', () => {
  it('refuses an empty directory', async () => {
    mkdirSync(join(sandbox.dir, 'empty'));
    const result = await runCliInProcess(['run', 'q', '-c', 'empty', ...OFFLINE], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expectRefused(result);
    expect(result.stderr).toContain('Context directory empty is empty');
  });

  it('refuses an empty file, naming it', async () => {
    writeFileSync(join(sandbox.dir, 'notes.txt'), '');
    const result = await runCliInProcess(['run', 'q', '-c', 'notes.txt', ...OFFLINE], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expectRefused(result);
    expect(result.stderr).toBe(
      'rlm: Context file notes.txt is empty; pass a file with text in it.\n',
    );
  });

  it('refuses a file of only whitespace', async () => {
    writeFileSync(join(sandbox.dir, 'blank.txt'), '\n  \n\t\n');
    const result = await runCliInProcess(['run', 'q', '-c', 'blank.txt', ...OFFLINE], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
    expectRefused(result);
    expect(result.stderr).toBe(
      'rlm: Context file blank.txt has only whitespace; pass a file with text in it.\n',
    );
  });

  it('refuses empty standard input, naming it', async () => {
    const result = await runCliInProcess(['run', 'q', '-c', '-', ...OFFLINE], {
      cwd: sandbox.dir,
      env: sandbox.env,
      input: '',
    });
    expectRefused(result);
    expect(result.stderr).toBe(
      'rlm: Standard input (--context -) is empty; pipe text into rlm, e.g. cat notes.txt | rlm run "…" --context -.\n',
    );
  });

  it('still answers over a non-empty standard input', async () => {
    const result = await runCliInProcess(
      ['run', 'What is the magic number?', '-c', '-', ...OFFLINE],
      {
        cwd: sandbox.dir,
        env: sandbox.env,
        input: 'the magic number is 7\n',
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('7');
  });
});

const TMUX = ['/usr/bin/tmux', '/usr/local/bin/tmux', '/opt/homebrew/bin/tmux'].find((path) =>
  existsSync(path),
);

describe.skipIf(TMUX === undefined)('rlm run -c - at a terminal (tmux)', () => {
  it('says it is reading standard input and how to end it, then refuses an empty one', async () => {
    const socket = `rlm-cli-stdin-${process.pid}-${Date.now()}`;
    const tmux = (...args: string[]) =>
      execFileSync(TMUX as string, ['-L', socket, ...args], { encoding: 'utf8' });
    const capture = () => tmux('capture-pane', '-p', '-t', 'rlm');
    async function waitFor(text: string): Promise<string> {
      const deadline = Date.now() + 90_000;
      let screen = '';
      while (Date.now() < deadline) {
        screen = capture();
        if (screen.includes(text)) return screen;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`the screen never showed ${JSON.stringify(text)}; last capture:\n${screen}`);
    }
    const command = `${process.execPath} ${BIN_PATH} run q -c - --model testkit:needle-finder; echo "exit=$?"; sleep 600`;
    try {
      tmux(
        'new-session',
        '-d',
        '-s',
        'rlm',
        '-x',
        '150',
        '-y',
        '20',
        '-c',
        sandbox.dir,
        ...Object.entries({ ...sandbox.env, TERM: 'xterm-256color' }).flatMap(([key, value]) => [
          '-e',
          `${key}=${value}`,
        ]),
        command,
      );
      const prompt = await waitFor('Ctrl-D');
      expect(prompt).toContain(
        'rlm: reading the context from standard input; type or paste it, then press Ctrl-D on an empty line to end it (Ctrl-C cancels).',
      );
      tmux('send-keys', '-t', 'rlm', 'C-d');
      const done = await waitFor('exit=');
      expect(done).toContain('Standard input (--context -) is empty');
      expect(done).toContain('exit=2');
    } finally {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    }
  });
});
