import { buildSystemPrompt, type SystemPromptOptions } from '@rlm/prompts';
import type { JsonValue } from '@rlm/protocol';
import { describe, expect, it } from 'vitest';
import { withSandbox } from './sandbox-cases.test-helpers.js';
import type { HostFunction } from './sandbox-options.js';

function replBlocks(text: string): string[] {
  return [...text.matchAll(/```repl\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? '');
}

/** Every Python prompt shape whose examples differ: helpers or not, delegation, background tasks. */
const PROMPTS: SystemPromptOptions[] = [
  { depth: 0, maxDepth: 3, mode: 'coordinator', dispatcher: true },
  { depth: 0, maxDepth: 3, mode: 'coordinator', dispatcher: true, contextHelpers: false },
];

function stub(respond: (args: JsonValue[]) => JsonValue): HostFunction {
  return { description: 'stub', call: async (args) => respond(args) };
}

/** Host functions shaped like the executor's, answering at once. */
const functions: Record<string, HostFunction> = {
  llm_query: stub(() => 'reply'),
  llm_query_batched: stub(([prompts]) =>
    (prompts as string[]).map((_, index) => `{"user": "u${index}", "time": "t"}`),
  ),
  rlm_query: stub(() => '[]'),
  rlm_query_batched: stub(([items]) => (items as JsonValue[]).map(() => '[]')),
  delegate: stub(() => 't1'),
  delegate_batch: stub(([tasks]) => (tasks as JsonValue[]).map((_, index) => `t${index + 1}`)),
  await_results: stub(() => ({ results: [], timedOut: [] })),
};

const context = Array.from(
  { length: 5_000 },
  (_, line) => `${line}: login failed for user${line % 7}, refund pending`,
).join('\n');

describe('the Python system prompts’ examples', () => {
  it('run as written in the sandbox the prompt describes', async () => {
    for (const options of PROMPTS) {
      const blocks = replBlocks(buildSystemPrompt({ ...options, repl: 'python' }));
      expect(blocks.length).toBeGreaterThanOrEqual(3);
      await withSandbox(
        { context, functions, contextHelpers: options.contextHelpers !== false },
        async (sandbox) => {
          for (const code of blocks) {
            const result = await sandbox.execute(code);
            expect(result.error, `${code}\n${result.stderr}`).toBeNull();
          }
        },
      );
    }
  });
});
