import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { BIN_PATH, createSandbox, type Sandbox } from '../testing/spawn-cli.js';

const TMUX = ['/usr/bin/tmux', '/usr/local/bin/tmux', '/opt/homebrew/bin/tmux'].find((path) =>
  existsSync(path),
);
/** How long the fake model takes to answer the second turn: the live view is captured meanwhile. */
const SLOW_TURN_MS = 6000;

let server: FakeAnthropicServer;
let sandbox: Sandbox;
let socket: string;

function tmux(...args: string[]): string {
  return execFileSync(TMUX ?? 'tmux', ['-L', socket, ...args], { encoding: 'utf8' });
}

async function waitForScreen(predicate: (screen: string) => boolean): Promise<string> {
  const deadline = Date.now() + 45_000;
  let screen = '';
  while (Date.now() < deadline) {
    screen = tmux('capture-pane', '-p', '-t', 'rlm');
    if (predicate(screen)) return screen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the screen never matched; last capture:\n${screen}`);
}

beforeAll(async () => {
  server = await startFakeAnthropic({
    script: readsContextPolicy({ slowSecondTurnMs: SLOW_TURN_MS }),
  });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  socket = `rlm-cli-test-${process.pid}-${Date.now()}`;
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 42\n');
});
afterEach(() => {
  if (TMUX !== undefined) {
    try {
      tmux('kill-server');
    } catch {
      // the server exits by itself when its last session ends
    }
  }
  sandbox.dispose();
});

describe.skipIf(TMUX === undefined)(
  'live progress view in a terminal (tmux; skipped when tmux is absent)',
  () => {
    it('redraws one tree in place while the run goes, then leaves the final tree and the answer', async () => {
      const env = {
        ...sandbox.env,
        TERM: 'xterm-256color',
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
        RLM_MODEL: 'anthropic/claude-sonnet-5-5',
      };
      // The CLI starts once the pane's output is being recorded (`go` exists), so a failure can
      // show every byte the terminal received, not only the screen it ended with.
      const command = `until [ -e go ]; do sleep 0.05; done; ${process.execPath} ${BIN_PATH} run 'What is the magic number?' --context notes.txt; echo "exit=$?"; sleep 600`;
      tmux(
        'new-session',
        '-d',
        '-s',
        'rlm',
        '-x',
        '110',
        '-y',
        '30',
        '-c',
        sandbox.dir,
        ...Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]),
        command,
      );
      const raw = join(sandbox.dir, 'pane.raw');
      tmux('pipe-pane', '-t', 'rlm', '-o', `cat >> '${raw}'`);
      writeFileSync(join(sandbox.dir, 'go'), '');
      const live = await waitForScreen((screen) => screen.includes('turn 2 waiting for the model'));
      // elapsed times are whatever the machine made them (`682ms`, `4.1s`, `1m 02s`): shape only
      expect(live).toMatch(
        /^rlm · anthropic\/claude-sonnet-5-5 · turn 2\/30 · [\d,]+ tokens · \$[\d.]+ · \S+$/m,
      );
      // finished turns fold into one summary line; the current turn is open
      expect(live).toMatch(/^ {2}turn 1 1 block, [^,]+$/m);
      expect(live).toMatch(/^ {2}turn 2 waiting for the model…$/m);
      const done = await waitForScreen((screen) => screen.includes('exit='));
      expect(done).toContain('exit=0');
      expect(done).toMatch(/^42$/m);
      expect(done).toMatch(/rlm · anthropic\/claude-sonnet-5-5 · 2 turns · .* · completed/);
      expect(done).toMatch(/✓ answer \(text\) 42/);
      // one tree, redrawn in place: the status header is on the screen once
      expect(
        done.match(/rlm · anthropic/g),
        `the screen:\n${done}\nwhat the terminal received:\n${JSON.stringify(readFileSync(raw, 'utf8'))}`,
      ).toHaveLength(1);
    });
  },
);
