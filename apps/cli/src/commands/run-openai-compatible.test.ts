import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let server: FakeOpenAIServer;
let sandbox: Sandbox;

beforeAll(async () => {
  // a local server (vLLM flavour): no key required, as with Ollama or llama.cpp
  server = await startFakeOpenAI({
    flavor: 'vllm',
    requireAuth: false,
    script: readsContextPolicy(),
  });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 1234\n');
});
afterEach(() => sandbox.dispose());

describe('rlm run with a local OpenAI-compatible server', () => {
  it('answers through --model openai-compatible/<model>@<base url> without any key', async () => {
    const model = `openai-compatible/llama3@${server.url}`;
    const result = await runCliInProcess(
      ['run', 'What is the magic number?', '-c', 'notes.txt', '--model', model, '--json'],
      {
        cwd: sandbox.dir,
        env: sandbox.env,
      },
    );
    expect(result.stderr).toContain('final answer (text)');
    expect(result.code).toBe(0);
    const completion = JSON.parse(result.stdout) as { answer: string; model: string };
    expect(completion.answer).toBe('1234');
    expect(completion.model).toBe('openai-compatible/llama3');
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });
});
