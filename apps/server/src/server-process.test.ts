import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type FakeOpenAIServer, type FakeReplyValue, startFakeOpenAI } from '@rlm/testkit';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readSse } from './test-support/read-sse.js';
import {
  compileServer,
  type ServerProcess,
  startServerProcess,
} from './test-support/server-process.js';

// These tests run the compiled binary as an operator would (see `compileServer`).
const run = promisify(execFile);

let bin: string;

beforeAll(async () => {
  bin = await compileServer();
}, 180_000);

let dataDir: string;
let fake: FakeOpenAIServer;
let phase: 'hang' | 'answer' = 'hang';

function sawOutput(messages: readonly { content: string }[]): boolean {
  return messages.some((message) => message.content.includes('REPL output'));
}

/** Turn 1 writes code; turn 2 hangs before the restart and answers after it. */
function reply(messages: readonly { content: string }[]): FakeReplyValue {
  if (!sawOutput(messages)) return '```repl\nprint(context.length)\n```';
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

function startServer(): Promise<ServerProcess> {
  return startServerProcess(bin, env());
}

async function api(server: ServerProcess & { key: string }, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${server.key}`);
  headers.set('content-type', 'application/json');
  return (await (await fetch(`${server.url}${path}`, { ...init, headers })).json()) as Record<
    string,
    unknown
  >;
}

/** The run's events over SSE from the start, as `[id, type, root iteration]`. */
async function eventLog(server: ServerProcess & { key: string }, runId: unknown) {
  const response = await fetch(`${server.url}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${server.key}` },
  });
  const log: { id: number; type: string; iteration: number | null }[] = [];
  for await (const message of readSse(response)) {
    if (message.event === 'end') break;
    const event = JSON.parse(message.data) as { type: string; depth: number; iteration?: number };
    const iteration = event.depth === 0 ? (event.iteration ?? null) : null;
    log.push({ id: Number(message.id), type: event.type, iteration });
  }
  return log;
}

/** Reads the run's events over SSE until one of `type` at the root's `iteration` is stored. */
async function untilStored(
  server: ServerProcess & { key: string },
  runId: unknown,
  { type, iteration }: { type: string; iteration: number },
): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/v1/runs/${runId}/events`, {
    headers: { authorization: `Bearer ${server.key}` },
    signal: controller.signal,
  });
  for await (const message of readSse(response)) {
    const event = JSON.parse(message.data) as { type: string; depth: number; iteration?: number };
    if (event.type === type && event.depth === 0 && event.iteration === iteration) break;
  }
  controller.abort();
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
    [bin, 'keys', 'create', '--name', 'ops', '--role', 'user'],
    { env: env() },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

/**
 * Each test starts processes (the CLI, the server twice) and waits up to 30 s at a time for what
 * they do; on a shared machine under a full parallel test run, one test took past 60 s. The bound
 * covers the waits inside it, not a speed expectation.
 */
const PROCESS_TEST_MS = 180_000;

describe('rlm-server process', () => {
  it('resumes a run killed with the process from its last checkpoint, without redoing earlier turns', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const key = await createKey();
    const first = await startServer();
    const created = await api({ ...first, key }, '/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ query: 'length?', context: 'abcdef' }),
    });
    await waitFor(() => fake.requests.length >= 2, 'the second model call');
    // Events are stored after they happen: kill only once turn 2's start is in the log.
    await untilStored({ ...first, key }, created['id'], { type: 'iteration-start', iteration: 1 });
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
      // Turn 1 was not redone: the only request after the restart is turn 2's, which carries
      // turn 1's REPL output.
      const afterRestart = fake.requests.slice(callsBeforeRestart);
      expect(afterRestart).toHaveLength(1);
      expect(afterRestart.every((request) => request.rawBody.includes('REPL output'))).toBe(true);
      // The event log continues: ids without gaps or repeats, turn 1 once, the interrupted
      // turn 2 where it was cut off and again after the restart, one run end.
      const log = await eventLog({ ...second, key }, created['id']);
      expect(log.map((entry) => entry.id)).toEqual(log.map((_, index) => index + 1));
      const iterations = log.filter((entry) => entry.type === 'iteration-start');
      expect(iterations.map((entry) => entry.iteration)).toEqual([0, 1, 1]);
      expect(log.filter((entry) => entry.type === 'run-start')).toHaveLength(1);
      expect(log.filter((entry) => entry.type === 'run-resume')).toHaveLength(1);
      expect(log.filter((entry) => entry.type === 'run-end')).toHaveLength(1);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    }
  });

  it('stops on SIGTERM with exit code 0, leaving a run to resume from its checkpoint at the next start', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const key = await createKey();
    const first = await startServer();
    const created = await api({ ...first, key }, '/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ query: 'q', context: 'abc' }),
    });
    await waitFor(() => fake.requests.length >= 2, 'the second model call');
    first.child.kill('SIGTERM');
    // The second turn hangs past the 300 ms grace period: the run stops there, unfinished.
    expect(await first.exit).toBe(0);
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
        answer: 'recovered',
      });
      expect(fake.requests.slice(callsBeforeRestart)).toHaveLength(1);
      // No end was recorded at the shutdown; turn 1 ran once, the cut-off turn 2 again.
      const log = await eventLog({ ...second, key }, created['id']);
      expect(log.filter((entry) => entry.type === 'run-end')).toHaveLength(1);
      const iterations = log.filter((entry) => entry.type === 'iteration-start');
      expect(iterations.map((entry) => entry.iteration)).toEqual([0, 1, 1]);
    } finally {
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    }
  });

  it('prints its usage for --help (exit 0) and for an unknown command (exit 2)', async () => {
    const { stdout } = await run(process.execPath, [bin, '--help'], { env: env() });
    expect(stdout).toMatch(/^usage: rlm-server \[serve\]/);
    await expect(run(process.execPath, [bin, 'serv'], { env: env() })).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command "serv"'),
    });
  });

  it('prints the version of its package.json for --version', async () => {
    const { version } = JSON.parse(
      await readFile(join(import.meta.dirname, '..', 'package.json'), 'utf8'),
    ) as { version: string };
    const { stdout } = await run(process.execPath, [bin, '--version'], { env: env() });
    expect(stdout).toBe(`${version}\n`);
  });

  it('says at start-up, after listening, where to look, that no key exists and that the default model cannot be served', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    await writeFile(join(dataDir, 'bare.json'), '{}');
    const bare = env({ RLM_SERVER_CONFIG: join(dataDir, 'bare.json') });
    delete bare['ANTHROPIC_API_KEY'];
    const server = await startServerProcess(bin, bare);
    try {
      const line = (pattern: RegExp) =>
        server.logs.find((entry) => pattern.test(String(entry['msg'])));
      await waitFor(() => line(/^The default profile/) !== undefined, 'the start-up lines');
      expect(line(/^API described at/)).toMatchObject({
        level: 30,
        openapi: `${server.url}/openapi.json`,
        runPage: `${server.url}/ui/runs/<run id>#key=<key>`,
      });
      expect(line(/^No API key exists yet/)).toMatchObject({ level: 40 });
      expect(String(line(/^No API key/)?.['msg'])).toContain(
        'rlm-server keys create --name <name>',
      );
      expect(line(/^The default profile "default" cannot be served/)).toMatchObject({ level: 40 });
      expect(String(line(/^The default profile/)?.['msg'])).toContain('ANTHROPIC_API_KEY');
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  });

  it('refuses a revoked key in a running server', { timeout: PROCESS_TEST_MS }, async () => {
    const key = await createKey();
    const server = await startServer();
    try {
      expect(
        (await fetch(`${server.url}/v1/runs`, { headers: { authorization: `Bearer ${key}` } }))
          .status,
      ).toBe(200);
      const { stdout } = await run(process.execPath, [bin, 'keys', 'list'], { env: env() });
      const { id } = JSON.parse(stdout.trim().split('\n')[0] ?? '{}') as { id: string };
      expect(stdout).not.toContain(key);
      await run(process.execPath, [bin, 'keys', 'revoke', id], { env: env() });
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
