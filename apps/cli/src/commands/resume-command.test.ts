import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeModelRequest, type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { READ_CONTEXT_REPLY } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox, spawnCli } from '../testing/spawn-cli.js';

/** Which reply the fake model delays forever, so a SIGKILL lands in that turn. */
let hang: 'first-turn' | 'second-turn' | 'none' = 'none';
let server: FakeOpenAIServer;
let sandbox: Sandbox;

beforeAll(async () => {
  server = await startFakeOpenAI({
    flavor: 'vllm',
    requireAuth: false,
    // Turn 0 computes the answer in the sandbox, turn 1 returns it: resuming after turn 0 only
    // answers correctly if the recorded block was re-executed.
    script: (request: FakeModelRequest) => {
      const turns = request.messages.filter((message) => message.role === 'assistant').length;
      if (turns === 0) {
        return { text: READ_CONTEXT_REPLY, delayMs: hang === 'first-turn' ? 600_000 : 0 };
      }
      return { text: 'FINAL_VAR(found)', delayMs: hang === 'second-turn' ? 600_000 : 0 };
    },
  });
});
afterAll(() => server.close());
beforeEach(() => {
  sandbox = createSandbox();
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 1234\n');
  writeFileSync(join(sandbox.dir, 'other.txt'), 'the magic number is 99\n');
});
afterEach(() => sandbox.dispose());

/** Starts `rlm run` and sends `signal` once the fake server has received `requests` model calls. */
async function killedRun(requests: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<string> {
  const before = server.requests.length;
  const result = await spawnCli(
    ['run', 'What is the magic number?', '-c', 'notes.txt', '--model', model()],
    {
      cwd: sandbox.dir,
      env: sandbox.env,
      onSpawn: (child) => {
        const timer = setInterval(() => {
          if (server.requests.length - before >= requests) {
            clearInterval(timer);
            child.kill(signal);
          }
        }, 20);
        child.on('close', () => clearInterval(timer));
      },
    },
  );
  if (signal === 'SIGKILL') expect(result.signal).toBe('SIGKILL');
  else expect(result.code).toBe(130);
  const dir = join(sandbox.dir, '.data', 'rlm', 'trajectories');
  const files = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  expect(files).toHaveLength(1);
  return files[0]?.replace(/\.jsonl$/, '') ?? '';
}

function model(): string {
  return `openai-compatible/llama3@${server.url}`;
}

function resume(runId: string, context: string) {
  return runCliInProcess(['resume', runId, '-c', context, '--model', model()], {
    cwd: sandbox.dir,
    env: sandbox.env,
  });
}

describe('rlm resume', () => {
  it('finishes a run killed after its first turn, continuing its trajectory', async () => {
    hang = 'second-turn';
    const runId = await killedRun(2);
    hang = 'none';

    const wrong = await resume(runId, 'other.txt');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`The context is not the one run ${runId} started with`);

    const before = server.requests.length;
    const resumed = await resume(runId, 'notes.txt');
    expect(resumed.stderr).not.toContain('Error');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('1234\n');
    expect(resumed.stderr).toContain(`run ${runId} resumed at turn 2`);
    // only the interrupted turn is asked again; the first turn came from the checkpoint
    expect(server.requests.length - before).toBe(1);
    const trajectory = readFileSync(
      join(sandbox.dir, '.data', 'rlm', 'trajectories', `${runId}.jsonl`),
      'utf8',
    );
    // One run: it started once and says where it went on, never a second run-start.
    expect(trajectory.match(/"run-start"/g)).toHaveLength(1);
    expect(trajectory.match(/"type":"run-resume","fromIteration":1,/g)).toHaveLength(1);

    const again = await resume(runId, 'notes.txt');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`Run ${runId} already finished (completed)`);
  });

  it('finishes a run cancelled with Ctrl-C', async () => {
    hang = 'second-turn';
    const runId = await killedRun(2, 'SIGINT');
    hang = 'none';
    const resumed = await resume(runId, 'notes.txt');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('1234\n');
  });

  it('says there is nothing to resume when the run died in its first turn', async () => {
    hang = 'first-turn';
    const runId = await killedRun(1);
    hang = 'none';
    const result = await resume(runId, 'notes.txt');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Run ${runId} has nothing to resume`);
  });

  it('names an unknown run id and the store it looked in', async () => {
    const result = await resume('no-such-run', 'notes.txt');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('There is no run no-such-run in ');
    expect(result.stderr).toContain(join('.data', 'rlm', 'runs.db'));
  });
});
