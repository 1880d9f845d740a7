import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type FakeOpenAIServer, startFakeOpenAI } from '@rlm/testkit';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  compileServer,
  nodeCommand,
  type ServerProcess,
  startServerProcess,
} from './test-support/server-process.js';

// Two real server processes on one data directory, and the modes of what they write, as an
// operator would meet them: the compiled binary, a shell umask of 022.
const run = promisify(execFile);
const UMASK = 0o022;
/** Covers the processes' start-ups and waits on a loaded machine, not a speed expectation. */
const PROCESS_TEST_MS = 180_000;

let bin: string;
let dataDir: string;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  bin = await compileServer();
}, 180_000);

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'rlm-server-data-dir-'));
  // Turn 1 writes code; turn 2 hangs, so the run stays live while a second server starts.
  fake = await startFakeOpenAI({
    script: (request) =>
      request.messages.some((message) => message.content.includes('REPL output'))
        ? { text: 'FINAL(late)', delayMs: 60_000 }
        : '```repl\nprint(context.length)\n```',
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

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    RLM_SERVER_DATA_DIR: join(dataDir, 'data'),
    RLM_SERVER_CONFIG: join(dataDir, 'config.json'),
    RLM_SERVER_PORT: '0',
  };
}

async function createKey(): Promise<string> {
  const [command, args] = nodeCommand(
    [bin, 'keys', 'create', '--name', 'ops', '--role', 'user'],
    UMASK,
  );
  const { stdout } = await run(command, args, { env: env() });
  return (JSON.parse(stdout) as { key: string }).key;
}

async function submitRun(server: ServerProcess, key: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'length?', context: 'abcdef' }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopped(server: ServerProcess, signal: NodeJS.Signals): Promise<number | null> {
  server.child.kill(signal);
  return server.exit;
}

async function mode(path: string): Promise<string> {
  return ((await stat(path)).mode & 0o777).toString(8);
}

describe('the data directory', () => {
  it('belongs to one server: a second one refuses to start, naming the first, and runs nothing; a dead holder does not block the next start', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const key = await createKey();
    const first = await startServerProcess(bin, env());
    let third: ServerProcess | undefined;
    try {
      await submitRun(first, key);
      await waitFor(() => fake.requests.length >= 2, 'the run to reach its second turn');
      const requests = fake.requests.length;

      const [command, args] = nodeCommand([bin]);
      // The bound only keeps a server that wrongly started from outliving the test.
      const refused = await run(command, args, {
        env: env(),
        timeout: 120_000,
        killSignal: 'SIGKILL',
      }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(refused, 'the second server started').toBeDefined();
      expect(refused?.code).toBe(1);
      expect(refused?.stderr).toContain('server.conflict');
      expect(refused?.stderr).toContain(`pid ${first.child.pid} on host ${hostname()}, started 20`);
      // Refused before the store was opened: no recovery, no sweep, no model call.
      expect(refused?.stdout).not.toContain('recovered unfinished runs');
      expect(refused?.stdout).not.toContain('listening');
      expect(fake.requests.length).toBe(requests);

      // SIGKILL leaves the lock file behind; the operating system has dropped the lock itself.
      expect(await stopped(first, 'SIGKILL')).toBeNull();
      third = await startServerProcess(bin, env());
      expect(third.logs.some((entry) => entry['msg'] === 'recovered unfinished runs')).toBe(true);
    } finally {
      first.child.kill('SIGKILL');
      if (third !== undefined) expect(await stopped(third, 'SIGTERM')).toBe(0);
    }
  });

  it('is 0700 with files 0600 under umask 022, and narrows what an older version left open', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const data = join(dataDir, 'data');
    const key = await createKey();
    expect(await mode(data)).toBe('700');
    expect(await mode(join(data, 'api-keys.json'))).toBe('600');

    const first = await startServerProcess(bin, env(), { umask: UMASK });
    try {
      await submitRun(first, key);
      await waitFor(() => fake.requests.length >= 2, 'the run to reach its second turn');
      const contexts = join(data, 'contexts');
      const files = [
        'rlm-server.db',
        'rlm-server.db-wal',
        'rlm-server.db-shm',
        'rlm-server.lock',
        'api-keys.json',
        ...(await readdir(contexts)).map((name) => join('contexts', name)),
      ];
      expect(files.length).toBeGreaterThan(5);
      const modes = await Promise.all(
        files.map(async (file) => [file, await mode(join(data, file))]),
      );
      expect(Object.fromEntries(modes)).toEqual(
        Object.fromEntries(files.map((file) => [file, '600'])),
      );
      expect([await mode(data), await mode(contexts)]).toEqual(['700', '700']);
    } finally {
      expect(await stopped(first, 'SIGTERM')).toBe(0);
    }

    // As an earlier version left them: world-readable.
    await chmod(data, 0o755);
    await chmod(join(data, 'rlm-server.db'), 0o644);
    const second = await startServerProcess(bin, env(), { umask: UMASK });
    try {
      expect([await mode(data), await mode(join(data, 'rlm-server.db'))]).toEqual(['700', '600']);
    } finally {
      expect(await stopped(second, 'SIGTERM')).toBe(0);
    }
  });
});
