import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rlmChatCompletionSchema } from '@rlm/protocol';
import { type FakeModelRequest, startFakeAnthropic } from '@rlm/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'some notes\n');
});
afterEach(() => sandbox.dispose());

const fence = (code: string) => ['```repl', code, '```'].join('\n');

/**
 * The root starts two children; child A asks for 10 sub-calls where its share of the sub-call
 * budget holds 9, child B answers at once; the root answers from what it got.
 */
function script(request: FakeModelRequest): string {
  if (request.system === undefined) return 'piece';
  if (request.system.includes('CHILD-A')) {
    return fence(
      'for (let i = 0; i < 10; i++) { try { await llm_query("part " + i) } catch (e) {} }',
    );
  }
  if (request.system.includes('CHILD-B')) return fence('FINAL("b")');
  return fence(
    [
      'const rs = await rlm_query_batched([{ prompt: "a", systemPrompt: "CHILD-A" }, { prompt: "b", systemPrompt: "CHILD-B" }])',
      'FINAL("root saw: " + rs[0].slice(0, 30))',
    ].join('\n'),
  );
}

describe('rlm run with sub-calls a budget refused', () => {
  it('prints the answer, reports refusedCalls in --json and exits 4', async () => {
    const server = await startFakeAnthropic({ script });
    try {
      const result = await spawnCli(
        ['run', 'q', '-c', 'notes.txt', '--json', '--max-depth', '2', '--max-subcalls', '20'],
        {
          cwd: sandbox.dir,
          env: {
            ...sandbox.env,
            ANTHROPIC_API_KEY: 'sk-test',
            ANTHROPIC_BASE_URL: server.url,
            RLM_MODEL: 'anthropic/claude-sonnet-5-5',
          },
        },
      );
      expect(result.code, result.stderr).toBe(4);
      const completion = rlmChatCompletionSchema.parse(JSON.parse(result.stdout));
      expect(completion).toMatchObject({ status: 'completed', refusedCalls: 1 });
      expect(completion.answer).toContain('root saw: Error: child run');
      expect(result.stderr).toContain('a budget refused 1 sub-call');
    } finally {
      await server.close();
    }
  });
});
