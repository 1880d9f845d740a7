import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rlmChatCompletionSchema, totalUsage } from '@rlm/protocol';
import {
  type FakeAnthropicServer,
  type FakeOpenAIServer,
  startFakeAnthropic,
  startFakeOpenAI,
} from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let openai: FakeOpenAIServer;
let claude: FakeAnthropicServer;
let sandbox: Sandbox;

beforeAll(async () => {
  openai = await startFakeOpenAI({ flavor: 'vllm', script: readsContextPolicy() });
  claude = await startFakeAnthropic({ script: readsContextPolicy() });
});
afterAll(async () => {
  await openai.close();
  await claude.close();
});
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 1234\n');
  writeFileSync(join(sandbox.dir, 'other.txt'), 'the magic number is 99\n');
});
afterEach(() => sandbox.dispose());

function cli(args: string[], env: Record<string, string> = {}) {
  return runCliInProcess(args, { cwd: sandbox.dir, env: { ...sandbox.env, ...env } });
}

/**
 * Runs the two-turn question with a token budget that lets the first turn finish (so it is
 * checkpointed) and stops the second: the first turn's prompt is the smaller half of the total.
 */
async function budgetStoppedRun(
  modelArgs: string[],
  env: Record<string, string> = {},
): Promise<{ runId: string; total: number }> {
  const ask = ['run', 'What is the magic number?', '-c', 'notes.txt', '--json', ...modelArgs];
  const full = await cli(ask, env);
  expect(full.code).toBe(0);
  const usage = totalUsage(rlmChatCompletionSchema.parse(JSON.parse(full.stdout)).usage);
  const total =
    usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const stopped = await cli([...ask, '--max-tokens', String(Math.floor(total / 2))], env);
  expect(stopped.code).toBe(4);
  const completion = rlmChatCompletionSchema.parse(JSON.parse(stopped.stdout));
  expect(completion).toMatchObject({ status: 'budget_exceeded', answer: null, iterations: 2 });
  return { runId: completion.runId, total };
}

describe('rlm resume with the recorded configuration', () => {
  it('reuses the recorded model and resumes a budget-stopped run only with a larger budget', async () => {
    const model = `openai-compatible/llama3@${openai.url}`;
    const { runId, total } = await budgetStoppedRun(['--model', model, '--max-iterations', '5']);

    const same = await cli(['resume', runId, '-c', 'notes.txt']);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(
      `Run ${runId} was stopped by its budget; resume it with a larger one`,
    );

    // No --model: the recorded one (with its endpoint) is used, not the default Anthropic model.
    const before = openai.requests.length;
    const resumed = await cli([
      'resume',
      runId,
      '-c',
      'notes.txt',
      '--max-tokens',
      String(2 * total),
    ]);
    expect(resumed.stderr).not.toContain('ANTHROPIC_API_KEY');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('1234\n');
    expect(openai.requests.length - before).toBe(1);
  });

  it('checks the run, then the context, then the credentials', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: claude.url };
    const { runId, total } = await budgetStoppedRun(
      ['--model', 'anthropic/claude-sonnet-5-5'],
      env,
    );
    const more = ['--max-tokens', String(2 * total)];
    const noKey = { ANTHROPIC_BASE_URL: claude.url };

    const unknown = await cli(['resume', 'no-such-run', '-c', 'missing.txt', ...more], noKey);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('There is no run no-such-run in ');

    const wrongContext = await cli(['resume', runId, '-c', 'other.txt', ...more], noKey);
    expect(wrongContext.code).toBe(2);
    expect(wrongContext.stderr).toContain(`The context is not the one run ${runId} started with`);

    const noCredentials = await cli(['resume', runId, '-c', 'notes.txt', ...more], noKey);
    expect(noCredentials.code).toBe(6);
    expect(noCredentials.stderr).toContain('ANTHROPIC_API_KEY is not set');

    const resumed = await cli(['resume', runId, '-c', 'notes.txt', ...more], env);
    expect(resumed).toMatchObject({ code: 0, stdout: '1234\n' });
  });
});
