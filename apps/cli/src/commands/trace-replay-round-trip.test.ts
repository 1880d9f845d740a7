import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeAnthropicServer, startFakeAnthropic } from '@rlm/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readsContextPolicy } from '../testing/reads-context-policy.js';
import { runCliInProcess } from '../testing/run-cli-in-process.js';
import { createSandbox, type Sandbox } from '../testing/spawn-cli.js';

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
    RLM_MODEL: 'anthropic/claude-sonnet-5-5',
  };
  writeFileSync(join(sandbox.dir, 'notes.txt'), 'the magic number is 42\n');
});
afterEach(() => sandbox.dispose());

async function recordRun(): Promise<{ runId: string; path: string }> {
  const result = await runCliInProcess(
    ['run', 'What is the magic number?', '-c', 'notes.txt', '--json'],
    {
      cwd: sandbox.dir,
      env,
    },
  );
  expect(result.code).toBe(0);
  const { runId, trajectoryPath } = JSON.parse(result.stdout) as {
    runId: string;
    trajectoryPath: string;
  };
  return { runId, path: trajectoryPath };
}

describe('trace and replay of a recorded run', () => {
  it('traces the run by path and by run id, and writes its HTML page', async () => {
    const { runId, path } = await recordRun();
    const byPath = await runCliInProcess(['trace', path], { cwd: sandbox.dir, env });
    const byId = await runCliInProcess(['trace', runId], { cwd: sandbox.dir, env });
    expect(byPath.code).toBe(0);
    expect(byId.stdout).toBe(byPath.stdout);
    expect(byPath.stdout).toMatch(
      /✓ block 1 \(lines 3–9\) {2}const text = Array\.isArray\(context\) \(\+6 lines\) {2}→ 3 chars out/,
    );
    expect(byPath.stdout).toContain('✓ answer (text) 42');
    const html = await runCliInProcess(['trace', runId, '--html', 'run.html'], {
      cwd: sandbox.dir,
      env,
    });
    expect(html.code).toBe(0);
    expect(readFileSync(join(sandbox.dir, 'run.html'), 'utf8')).toContain('FINAL_VAR(found)');
  });

  it('replays the run offline and reports that it reproduces', async () => {
    const { path } = await recordRun();
    // offline: no model server is reachable during the replay
    const offline = { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' };
    const result = await runCliInProcess(['replay', path, '--context', 'notes.txt'], {
      cwd: sandbox.dir,
      env: offline,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Reproduces: \d+ events, status completed, answer: 42\n$/);
  });

  it('refuses to replay with a different context', async () => {
    const { path } = await recordRun();
    writeFileSync(join(sandbox.dir, 'other.txt'), 'something else');
    const result = await runCliInProcess(['replay', path, '--context', 'other.txt'], {
      cwd: sandbox.dir,
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The context is not the one this run recorded');
  });

  it('says the context was not given when --context is left out, not that it differs', async () => {
    const { runId } = await recordRun();
    const result = await runCliInProcess(['replay', runId], { cwd: sandbox.dir, env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^rlm: This run was recorded with a context \\(context sha256:[0-9a-f]+\\) and no --context was given; pass the same --context arguments as the original run, in the same order: rlm replay ${runId} --context <path>\\.\n$`,
      ),
    );
    expect(result.stderr).not.toContain('e3b0c44298fc1c14');
  });

  it('replays a run over two contexts, and refuses a different second one', async () => {
    writeFileSync(join(sandbox.dir, 'second.txt'), 'second');
    const recorded = await runCliInProcess(
      ['run', 'Join them', '-c', 'notes.txt', '-c', 'second.txt', '--json'],
      { cwd: sandbox.dir, env },
    );
    expect(recorded.code).toBe(0);
    const { trajectoryPath } = JSON.parse(recorded.stdout) as { trajectoryPath: string };
    const offline = { ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' };
    const same = await runCliInProcess(
      ['replay', trajectoryPath, '-c', 'notes.txt', '-c', 'second.txt'],
      {
        cwd: sandbox.dir,
        env: offline,
      },
    );
    expect(same).toMatchObject({ code: 0, stderr: '' });
    expect(same.stdout).toMatch(/^Reproduces: \d+ events, status completed, answer: 42\n$/);
    writeFileSync(join(sandbox.dir, 'other.txt'), 'other');
    const different = await runCliInProcess(
      ['replay', trajectoryPath, '-c', 'notes.txt', '-c', 'other.txt'],
      { cwd: sandbox.dir, env: offline },
    );
    expect(different.code).toBe(2);
    expect(different.stderr).toContain('The context is not the one this run recorded (context_1');
    const fewer = await runCliInProcess(['replay', trajectoryPath, '-c', 'notes.txt'], {
      cwd: sandbox.dir,
      env: offline,
    });
    expect(fewer.code).toBe(2);
    expect(fewer.stderr).toContain(
      'This run was recorded with more contexts than the 1 given (context_1 sha256:',
    );
  });
});
