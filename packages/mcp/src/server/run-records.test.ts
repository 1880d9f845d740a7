import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { samplingClient } from '../testing/index.js';
import { createRlmMcpServer, type RlmMcpServerOptions } from './rlm-mcp-server.js';

let dir: string;
let trajectories: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rlm-run-records-'));
  trajectories = join(dir, 'trajectories');
  await mkdir(trajectories);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function connect(options: RlmMcpServerOptions) {
  const rlm = createRlmMcpServer({ repl: { isolation: 'inline' }, cwd: null, ...options });
  const client = samplingClient('run-records-test');
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await rlm.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    rlm,
    client,
    read: (uri: string) =>
      client.readResource({ uri }).then(
        ({ contents }) =>
          contents[0] !== undefined && 'text' in contents[0] ? contents[0].text : '',
        (error: unknown) => error,
      ),
    async [Symbol.asyncDispose]() {
      await client.close();
      await rlm.close();
    },
  };
}

/** A trajectory file in the directory, written by an earlier session (its own record). */
async function earlierTrajectory(): Promise<string> {
  await using earlier = await connect({ sessionTrajectory: { dir: trajectories } });
  await earlier.client.callTool({ name: 'context_load', arguments: { text: 'earlier' } });
  return earlier.rlm.recordId;
}

const notFound = (value: unknown) => value instanceof McpError && value.code === -32002;

describe('rlm://runs/{id} of runs an earlier session recorded', () => {
  it('reads them by id from earlierRunsDir', async () => {
    const id = await earlierTrajectory();
    await using session = await connect({ earlierRunsDir: trajectories });
    const text = await session.read(`rlm://runs/${id}`);
    expect(typeof text === 'string' ? JSON.parse(text.split('\n')[0] ?? '{}') : text).toMatchObject(
      {
        kind: 'header',
        runId: id,
      },
    );
  });

  it('does not read the directory without earlierRunsDir (a shared server)', async () => {
    const id = await earlierTrajectory();
    await using session = await connect({});
    expect(notFound(await session.read(`rlm://runs/${id}`))).toBe(true);
  });

  it('refuses an id that leaves the directory, and a file that is not a trajectory', async () => {
    const id = await earlierTrajectory();
    await copyFile(join(trajectories, `${id}.jsonl`), join(dir, 'outside.jsonl'));
    await writeFile(join(trajectories, 'notes.jsonl'), '{"not":"a trajectory"}\n');
    await using session = await connect({ earlierRunsDir: trajectories });
    for (const escaping of [
      'notes',
      '../outside',
      '..%2Foutside',
      `.${id}`,
      `${id}/../${id}`,
      '',
    ]) {
      expect(notFound(await session.read(`rlm://runs/${escaping}`)), escaping).toBe(true);
    }
  });
});
