import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rlmChatCompletionSchema } from '@rlm/protocol';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

const MODEL = 'anthropic/claude-sonnet-5-5';
let server: FakeAnthropicServer;
let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startFakeAnthropic({ script: readsContextPolicy() });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  env = {
    ...sandbox.env,
    ANTHROPIC_API_KEY: 'sk-test',
    ANTHROPIC_BASE_URL: server.url,
    RLM_MODEL: MODEL,
  };
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'lorem ipsum\nthe magic number is 42\nmore\n');
});
afterEach(() => sandbox.dispose());

function run(args: string[], input?: string) {
  return runCliInProcess(['run', 'What is the magic number?', ...args], {
    cwd: sandbox.dir,
    env,
    ...(input === undefined ? {} : { input }),
  });
}

describe('rlm run', () => {
  it('prints the answer on stdout and plain progress lines on stderr', async () => {
    const result = await run(['--context', 'notes.txt']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('42\n');
    expect(result.stderr).toContain('context ← notes.txt: 40 B\n');
    expect(result.stderr).toMatch(/^run \S+ started: model anthropic\/claude-sonnet-5-5/m);
    expect(result.stderr).toMatch(
      /^turn 1 done in \S+: 1 block \(const text = Array\.isArray\(context\) \(\+\d+ lines\)\) · /m,
    );
    expect(result.stderr).toContain('\nfinal answer (text)\n');
    expect(result.stderr).toMatch(/Trajectory: .*\.data\/rlm\/trajectories\/\S+\.jsonl\n$/);
  });

  it('prints the full result as JSON with --json', async () => {
    const result = await run(['--context', 'notes.txt', '--json']);
    expect(result.code).toBe(0);
    const completion = rlmChatCompletionSchema.parse(JSON.parse(result.stdout));
    expect(completion).toMatchObject({
      answer: '42',
      status: 'completed',
      iterations: 2,
      model: MODEL,
    });
    expect(completion.usage.models[MODEL]?.calls).toBe(2);
    expect(existsSync(completion.trajectoryPath ?? '')).toBe(true);
  });

  it('prints nothing on stderr with --quiet', async () => {
    const result = await run(['--context', 'notes.txt', '--quiet']);
    expect(result).toMatchObject({ code: 0, stdout: '42\n', stderr: '' });
  });

  it('reads stdin for - and passes several contexts as context_0 and context_1', async () => {
    writeFileSync(join(sandbox.dir, 'other.txt'), 'second');
    const result = await run(['--context', '-', '--context', 'other.txt'], 'first');
    // The policy joins context_0 and context_1 only when the second payload is its own variable.
    expect(result).toMatchObject({ code: 0, stdout: 'first|second\n' });
    expect(result.stderr).toContain('context_0 ← standard input: 5 B\n');
    expect(result.stderr).toContain('context_1 ← other.txt: 6 B\n');
  });

  it('loads a directory and reports its size on stderr', async () => {
    mkdirSync(join(sandbox.dir, 'docs/deep'), { recursive: true });
    writeFileSync(join(sandbox.dir, 'docs/a.md'), 'alpha');
    writeFileSync(join(sandbox.dir, 'docs/deep/b.md'), 'the magic number is 7');
    const result = await run(['--context', 'docs']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('7\n');
    expect(result.stderr).toContain('context ← docs: 2 files, 26 B\n');
  });

  it('exits 4 with no answer on stdout when a budget stops the run in its first turn, with no resume hint', async () => {
    const result = await run(['--context', 'notes.txt', '--max-tokens', '100']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /rlm: The run ended without an answer \(budget_exceeded: .*tokens/,
    );
    expect(result.stderr).toContain(
      'Its last response (not an answer):\n  I will read the context first.',
    );
    // Stopped before its first turn finished, it has no checkpoint: rlm resume could not continue it.
    expect(result.stderr).not.toContain('Continue it');
  });
});

describe('rlm run failures', () => {
  it('explains a missing API key in one sentence, exit 6 (auth)', async () => {
    const { ANTHROPIC_API_KEY: _key, ...withoutKey } = env;
    const result = await runCliInProcess(['run', 'q', '-c', 'notes.txt', '-q'], {
      cwd: sandbox.dir,
      env: withoutKey,
    });
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'rlm: ANTHROPIC_API_KEY is not set; export ANTHROPIC_API_KEY=<your key>, or pick another model with --model (try --model testkit:needle-finder for an offline demo).\n',
    );
  });

  it('explains an unreachable base URL and how to fix it, exit 5 (provider)', async () => {
    env['ANTHROPIC_BASE_URL'] = 'http://127.0.0.1:1';
    const result = await run(['--context', 'notes.txt', '-q']);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^rlm: Cannot reach the model server at http:\/\/127\.0\.0\.1:1 \(.*\); check that it is running and that --model or ANTHROPIC_BASE_URL points at it\.\nTrajectory: /,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 for an unknown flag and shows how to get help', async () => {
    const result = await run(['--frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("rlm: unknown option '--frobnicate'");
    expect(result.stderr).toContain('--help');
  });
});
