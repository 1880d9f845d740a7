import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let server: FakeAnthropicServer;
let sandbox: Sandbox;

beforeAll(async () => {
  // The second turn never comes back in time: the run is waiting on the model when Ctrl-C arrives.
  server = await startFakeAnthropic({ script: readsContextPolicy({ slowSecondTurnMs: 120_000 }) });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 42\n');
});
afterEach(() => sandbox.dispose());

describe('Ctrl-C during rlm run', () => {
  it('cancels, shows the exact resume command, the last response and the trajectory, exits 130', async () => {
    let interrupted = false;
    const result = await spawnCli(['run', 'What is the magic number?', '--context', 'notes.txt'], {
      cwd: sandbox.dir,
      env: {
        ...sandbox.env,
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.url,
        RLM_MODEL: 'anthropic/claude-sonnet-5-5',
      },
      onSpawn(child) {
        // Accumulate: a progress line may arrive split across chunks.
        let seen = '';
        child.stderr?.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          // Turn 1 is done: the run now waits on the model's slow second reply.
          if (!interrupted && seen.includes('turn 1 done')) {
            interrupted = true;
            child.kill('SIGINT');
          }
        });
      },
    });
    expect(interrupted).toBe(true);
    expect(result.code).toBe(130);
    // No answer: nothing on stdout; the last response is shown on stderr, marked as such.
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Cancelling… (press Ctrl-C again to exit at once)');
    const runId = /Trajectory: \S+\/([^/\s]+)\.jsonl\n$/.exec(result.stderr)?.[1];
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const command = `rlm resume ${runId} -c notes.txt`;
    expect(result.stderr).toContain(`To continue it later: ${command}`);
    expect(result.stderr).toContain('rlm: Cancelled.\nIts last response (not an answer):\n');
    expect(result.stderr).toContain('I will read the context first.');
    expect(result.stderr).toContain(`Continue it: ${command}\n`);
  });
});
