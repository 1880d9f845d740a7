import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeModelRequest, type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

let server: FakeOpenAIServer;
let sandbox: Sandbox;
/** The system prompt of each run's first request, by the query that started it. */
const firstSystem = new Map<string, string>();

function answerAtOnce(request: FakeModelRequest): string {
  const text = request.messages.map((message) => message.content).join('\n');
  const query = /original prompt: "([^"]*)"/.exec(text)?.[1] ?? '';
  if (!firstSystem.has(query)) firstSystem.set(query, request.system ?? '');
  return 'FINAL(done)';
}

beforeAll(async () => {
  server = await startFakeOpenAI({ flavor: 'vllm', script: answerAtOnce });
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'context.txt'), 'the context');
});
afterAll(async () => {
  await server.close();
  sandbox.dispose();
});

// In process: what is compared is the prompt text, not anything about the process.
const cli = (args: readonly string[]) =>
  runCliInProcess(args, { cwd: sandbox.dir, env: sandbox.env });

const cases: [string, string[]][] = [
  ['solver, JavaScript', []],
  [
    'coordinator, JavaScript',
    ['--mode', 'coordinator', '--max-depth', '3', '--driver', 'verify-before-final'],
  ],
  ['solver, Python', ['--repl', 'python', '--max-iterations', '4']],
  ['coordinator, Python', ['--repl', 'python', '--mode', 'coordinator']],
];

// Python runs load Pyodide (seconds each on a busy machine).
describe('rlm prompts show', { timeout: 240_000 }, () => {
  it.each(cases)('prints the system prompt rlm run sends: %s', async (name, flags) => {
    const model = ['--model', `openai-compatible/exact@${server.url}`];
    const run = await cli([
      'run',
      name,
      '-c',
      'context.txt',
      '--max-iterations',
      '2',
      ...model,
      ...flags,
    ]);
    expect(run.code).toBe(0);
    const sent = firstSystem.get(name);
    expect(sent).toBeDefined();
    const shown = await cli(['prompts', 'show', '--max-iterations', '2', ...model, ...flags]);
    expect(shown.code).toBe(0);
    const prompt = shown.stdout.slice(0, shown.stdout.lastIndexOf('\n\nsystem prompt: depth'));
    expect(prompt).toBe(sent);
  });
});
