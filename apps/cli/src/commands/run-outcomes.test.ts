import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rlmChatCompletionSchema } from '@rlm/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

const HAYSTACK = fileURLToPath(new URL('../../examples/haystack.txt', import.meta.url));
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  copyFileSync(HAYSTACK, join(sandbox.dir, 'haystack.txt'));
});
afterEach(() => sandbox.dispose());

function run(extra: string[]) {
  return spawnCli(
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
    // Turn 1 answers FINAL_VAR(answer) after turn 0's block timed out before assigning it:
    // once the run ended `completed` with the answer "null".
    for (const iterations of ['1', '3']) {
      const result = await run(['--block-timeout-ms', '1', '--max-iterations', iterations]);
      expect(result.code).toBe(3);
      const completion = rlmChatCompletionSchema.parse(JSON.parse(result.stdout));
      expect(completion).toMatchObject({ status: 'max_iterations', answer: null });
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
