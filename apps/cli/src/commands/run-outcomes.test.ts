import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rlmChatCompletionSchema } from '@rlm/protocol';
import { startFakeAnthropic } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

const HAYSTACK = fileURLToPath(new URL('../../examples/haystack.txt', import.meta.url));
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  copyFileSync(HAYSTACK, join(sandbox.dir, 'haystack.txt'));
});
afterEach(() => sandbox.dispose());

function run(extra: string[]) {
  return runCliInProcess(
    [
      'run',
      'What is the magic number?',
      '-c',
      'haystack.txt',
      '--model',
      'testkit:needle-finder',
      '--json',
      ...extra,
    ],
    { cwd: sandbox.dir, env: sandbox.env },
  );
}

describe('rlm run outcomes: an answer only when the model gave one', () => {
  it('exits 3 at the iteration limit with no answer taken from the raw last reply', async () => {
    const result = await run(['--max-iterations', '1']);
    expect(result.code).toBe(3);
    const completion = rlmChatCompletionSchema.parse(JSON.parse(result.stdout));
    expect(completion).toMatchObject({ status: 'max_iterations', answer: null });
    // The reply that used to become the answer: unexecuted code and a literal FINAL_VAR.
    expect(completion.partialAnswer).toContain('FINAL_VAR(answer)');
  });

  it('gives no answer when FINAL_VAR names a variable a timed-out block left undefined', async () => {
    // Turn 0's block spins until the block timeout stops it, before it assigns `answer`; every
    // later turn answers FINAL_VAR(answer): once the run ended `completed` with the answer "null".
    // The loop never ends, so the timeout stops it however fast or slow the machine is.
    const server = await startFakeAnthropic({
      script: (request) =>
        request.messages.some((message) => message.role === 'assistant')
          ? 'FINAL_VAR(answer)'
          : ['```repl', 'while (true) {}', "const answer = 'never';", '```'].join('\n'),
    });
    try {
      for (const iterations of ['1', '3']) {
        const result = await runCliInProcess(
          ['run', 'q', '-c', 'haystack.txt', '--json', '--block-timeout-ms', '200'],
          {
            cwd: sandbox.dir,
            env: {
              ...sandbox.env,
              ANTHROPIC_API_KEY: 'sk-test',
              ANTHROPIC_BASE_URL: server.url,
              RLM_MODEL: 'anthropic/claude-sonnet-5-5',
              RLM_MAX_ITERATIONS: iterations,
            },
          },
        );
        expect(result.code, result.stderr).toBe(3);
        expect(result.stderr).toContain('the block ran longer than its 200 ms wall-clock limit');
        const completion = rlmChatCompletionSchema.parse(JSON.parse(result.stdout));
        expect(completion).toMatchObject({ status: 'max_iterations', answer: null });
      }
    } finally {
      await server.close();
    }
  });

  it('exits 0 with the answer when the model gives one', async () => {
    const result = await run([]);
    expect(result.code).toBe(0);
    expect(rlmChatCompletionSchema.parse(JSON.parse(result.stdout))).toMatchObject({
      status: 'completed',
      answer: expect.stringMatching(/^\d+$/),
    });
  });
});
