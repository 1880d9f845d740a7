import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type FakeOpenAIServer, type FakeScript, startFakeOpenAI } from '@rlm/testkit';
import { createTestDatabase, type TestDatabase } from '@rlm/testkit/postgres';
import { compileServer, type ServerProcess, startServerProcess } from './server-process.js';

const run = promisify(execFile);

/** Replicas of the compiled server on one throwaway Postgres, as an operator runs them. */
export interface ReplicaCluster {
  /** The compiled server's `bin.js`. */
  bin: string;
  database: TestDatabase;
  /** The fake model every profile points at. */
  fake: FakeOpenAIServer;
  /** A key every replica accepts. */
  key: string;
  /** Every replica started, in order (a killed one too: its logs outlive it). */
  started: ServerProcess[];
  /** Replica `index`'s environment: the shared database and config, a data directory of its own. */
  env(index: number): NodeJS.ProcessEnv;
  /** Kills every replica (SIGKILL), closes the fake model, drops the database, removes the files. */
  close(): Promise<void>;
}

export interface ReplicaClusterOptions {
  /** Replicas to start. */
  replicas: number;
  /** How the fake model answers. */
  script: FakeScript;
  /** The server configuration, with the fake model's base URL for its profiles. */
  config(fakeUrl: string): Record<string, unknown>;
  /** The temp directory's prefix and the key's name. */
  name: string;
}

/**
 * Compiles the server, creates a database, starts the fake model, writes the configuration,
 * creates a key with the server's own `keys create`, and starts `replicas` server processes. On
 * a failure half-way, what was made is removed before the error is thrown.
 */
export async function startReplicaCluster(options: ReplicaClusterOptions): Promise<ReplicaCluster> {
  const made: { database?: TestDatabase; fake?: FakeOpenAIServer; directory?: string } = {};
  const started: ServerProcess[] = [];
  const close = async () => {
    for (const replica of started) replica.child.kill('SIGKILL');
    await made.fake?.close();
    await made.database?.drop();
    if (made.directory !== undefined) await rm(made.directory, { recursive: true, force: true });
  };
  try {
    const bin = await compileServer();
    const database = await createTestDatabase();
    made.database = database;
    const directory = await mkdtemp(join(tmpdir(), `rlm-${options.name}-`));
    made.directory = directory;
    const fake = await startFakeOpenAI({ requireAuth: false, script: options.script });
    made.fake = fake;
    await writeFile(join(directory, 'config.json'), JSON.stringify(options.config(fake.url)));
    const env = (index: number): NodeJS.ProcessEnv => ({
      ...process.env,
      RLM_DATABASE_URL: database.url,
      RLM_SERVER_CONFIG: join(directory, 'config.json'),
      RLM_SERVER_DATA_DIR: join(directory, `replica-${index}`),
      RLM_SERVER_PORT: '0',
    });
    const { stdout } = await run(
      process.execPath,
      [bin, 'keys', 'create', '--name', options.name],
      {
        env: env(0),
      },
    );
    const key = (JSON.parse(stdout) as { key: string }).key;
    for (let index = 0; index < options.replicas; index++) {
      started.push(await startServerProcess(bin, env(index)));
    }
    return { bin, database, fake, key, started, env, close };
  } catch (error) {
    await close();
    throw error;
  }
}
