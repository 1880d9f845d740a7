import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type FakeOpenAIServer, type FakeReplyValue, startFakeOpenAI } from '@rlm/testkit';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

// These tests run the compiled binary as an operator would. It is compiled into its own
// directory (not dist/), so a concurrent `build` task never races with the test.
const PACKAGE_DIR = join(import.meta.dirname, '..');
const BUILD_DIR = join(PACKAGE_DIR, '.test-build');
const BIN = join(BUILD_DIR, 'bin.js');
const run = promisify(execFile);

beforeAll(async () => {
  await mkdir(BUILD_DIR, { recursive: true });
  await writeFile(
    join(BUILD_DIR, 'tsconfig.json'),
    JSON.stringify({
      extends: '../tsconfig.build.json',
      compilerOptions: {
        rootDir: '../src',
        outDir: '.',
        composite: false,
        declaration: false,
        declarationMap: false,
        incremental: true,
        tsBuildInfoFile: './.tsbuildinfo',
      },
      include: ['../src'],
      exclude: ['../src/**/*.test.ts', '../src/test-support/**'],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await run(process.execPath, [tsc, '-p', join(BUILD_DIR, 'tsconfig.json')], { cwd: PACKAGE_DIR });
}, 180_000);

interface Spawned {
  child: ChildProcess;
  url: string;
  exit: Promise<number | null>;
}

let dataDir: string;
let fake: FakeOpenAIServer;
let phase: 'hang' | 'answer' = 'hang';

/** Turn 1 writes code; turn 2 hangs before the restart and answers after it. */
function reply(messages: readonly { content: string }[]): FakeReplyValue {
  const sawOutput = messages.some((message) => message.content.includes('REPL output'));
  if (!sawOutput) return '```repl\nprint(context.length)\n```';
  return phase === 'hang' ? { text: 'FINAL(too late)', delayMs: 60_000 } : 'FINAL(recovered)';
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    RLM_SERVER_DATA_DIR: dataDir,
    RLM_SERVER_CONFIG: join(dataDir, 'config.json'),
    RLM_SERVER_PORT: '0',
    ...extra,
  };
}

async function startServer(): Promise<Spawned> {
  const child = spawn(process.execPath, [BIN], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (const line of buffer.split('\n')) {
        if (line.includes('"msg":"listening"')) resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited early with ${code}`)));
  });
  return { child, url, exit };
}

async function api(server: Spawned & { key: string }, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${server.key}`);
  headers.set('content-type', 'application/json');
  return (await (await fetch(`${server.url}${path}`, { ...init, headers })).json()) as Record<
    string,
    unknown
  >;
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeEach(async () => {
  phase = 'hang';
  dataDir = await mkdtemp(join(tmpdir(), 'rlm-server-process-'));
  fake = await startFakeOpenAI({
    script: (request) => reply(request.messages),
    requireAuth: false,
  });
  const config = {
    profiles: { default: { model: `openai-compatible/fake@${fake.url}`, maxIterations: 5 } },
    shutdownGraceMs: 300,
  };
  await writeFile(join(dataDir, 'config.json'), JSON.stringify(config));
});

afterEach(async () => {
  await fake.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function createKey(): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [BIN, 'keys', 'create', '--name', 'ops', '--role', 'user'],
    { env: env() },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

describe('rlm-server process', () => {
  it('runs again a run that was running when the process was killed, without repeating answered calls', {
    timeout: 60_000,
  }, async () => {
    const key = await createKey();
    const first = await startServer();
    const created = await api({ ...first, key }, '/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ query: 'length?', context: 'abcdef' }),
    });
    await waitFor(() => fake.requests.length >= 2, 'the second model call');
    first.child.kill('SIGKILL');
    await first.exit;
    phase = 'answer';
    const callsBeforeRestart = fake.requests.length;
    const second = await startServer();
    try {
      await waitFor(
        async () =>
          (await api({ ...second, key }, `/v1/runs/${created['id']}`))['status'] === 'completed',
        'the run to complete',
      );
      expect(await api({ ...second, key }, `/v1/runs/${created['id']}`)).toMatchObject({
        status: 'completed',
        answer: 'recovered',
      });
      // Turn 1's answer came from the stored trajectory: only turn 2 reached the model again.
      expect(fake.requests.length - callsBeforeRestart).toBe(1);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    }
  });

  it('stops on SIGTERM with exit code 0 and marks an unfinished run interrupted', {
    timeout: 60_000,
  }, async () => {
    const key = await createKey();
    const first = await startServer();
    const created = await api({ ...first, key }, '/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ query: 'q' }),
    });
    await waitFor(() => fake.requests.length > 0, 'the first model call');
    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    const second = await startServer();
    try {
      const view = await api({ ...second, key }, `/v1/runs/${created['id']}`);
      expect(view).toMatchObject({ status: 'interrupted', error: { code: 'server.unavailable' } });
      expect(String((view['error'] as { message: string }).message)).toContain('grace period');
    } finally {
      second.child.kill('SIGTERM');
      await second.exit;
    }
  });

  it('refuses a revoked key in a running server', { timeout: 60_000 }, async () => {
    const key = await createKey();
    const server = await startServer();
    try {
      expect(
        (await fetch(`${server.url}/v1/runs`, { headers: { authorization: `Bearer ${key}` } }))
          .status,
      ).toBe(200);
      const { stdout } = await run(process.execPath, [BIN, 'keys', 'list'], { env: env() });
      const { id } = JSON.parse(stdout.trim().split('\n')[0] ?? '{}') as { id: string };
      expect(stdout).not.toContain(key);
      await run(process.execPath, [BIN, 'keys', 'revoke', id], { env: env() });
      const after = await fetch(`${server.url}/v1/runs`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(after.status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });
});
