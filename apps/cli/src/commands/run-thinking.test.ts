import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let server: FakeAnthropicServer;
let sandbox: Sandbox;

beforeAll(async () => {
  server = await startFakeAnthropic({ script: readsContextPolicy() });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 1234\n');
});
afterEach(() => sandbox.dispose());

describe('rlm run --thinking-budget / --effort', () => {
  it('sends extended thinking and effort to an anthropic/ model', async () => {
    const before = server.requests.length;
    const result = await runCliInProcess(
      [
        'run',
        'What is the magic number?',
        '-c',
        'notes.txt',
        '--model',
        'anthropic/claude-sonnet-5-5',
        '--thinking-budget',
        '2048',
        '--effort',
        'high',
        '--json',
      ],
      {
        cwd: sandbox.dir,
        env: { ...sandbox.env, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.url },
      },
    );
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { answer: string }).answer).toBe('1234');
    const body = server.requests[before]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2_048 },
      output_config: { effort: 'high' },
    });
  });

  it('refuses them for a run without an anthropic/ model, and a budget under 1024 (exit 2)', async () => {
    const options = { cwd: sandbox.dir, env: sandbox.env };
    const ask = ['run', 'q', '-c', 'notes.txt', '--model', 'testkit:needle-finder'];
    const effort = await runCliInProcess([...ask, '--effort', 'low'], options);
    expect(effort.code).toBe(2);
    expect(effort.stderr).toContain('apply to anthropic/ models');
    const low = await runCliInProcess([...ask, '--thinking-budget', '100'], options);
    expect(low.code).toBe(2);
    expect(low.stderr).toContain('1024');
  });
});
