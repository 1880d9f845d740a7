#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RlmError } from '@rlm/protocol';
import { createFileApiKeyStore } from './file-api-key-store.js';
import { runKeysCommand } from './keys-command.js';
import { loadServerConfig } from './load-server-config.js';

const io = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
};

const USAGE = `usage: rlm-server [serve]                  start the HTTP API (settings: RLM_SERVER_CONFIG, RLM_SERVER_*)
       rlm-server keys create|list|revoke  manage the API keys in the data directory
       rlm-server --version                the version of this server
       rlm-server --help                   this text
`;

async function run(argv: readonly string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout(USAGE);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    // The package's own version, as `/openapi.json` reports it: never a number written here.
    const { version } = JSON.parse(
      await readFile(new URL('../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    io.stdout(`${version}\n`);
    return;
  }
  if (command === 'keys') {
    const config = await loadServerConfig(process.env);
    if (config.store.kind === 'postgres') {
      // Replicas share their keys in the database; loaded only here, so SQLite setups need no pg.
      const { withPostgresKeys } = await import('./cluster/with-postgres-keys.js');
      process.exitCode = await withPostgresKeys(config.store.url, (keys) =>
        runKeysCommand(rest, { keys, io }),
      );
      return;
    }
    const keys = createFileApiKeyStore(join(config.dataDir, 'api-keys.json'));
    process.exitCode = await runKeysCommand(rest, { keys, io });
    return;
  }
  if (command !== 'serve') {
    io.stderr(`rlm-server: unknown command "${command}"\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  // Loaded only to serve, so `keys` commands start without the executor and SQLite.
  const { main } = await import('./main.js');
  const started = main();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    io.stderr(`${signal}: stopping (running runs get the grace period)\n`);
    // A signal during start-up stops the server once it has started; a failed start exits below.
    started
      .then((server) => server.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          io.stderr(`shutdown failed: ${String(error)}\n`);
          process.exit(1);
        },
      );
  };
  // Before the start completes: a signal that came between `listening` and the handlers would
  // otherwise kill the process outright (on a loaded machine a client can act on `listening`
  // before this process runs again).
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await started;
}

run(process.argv.slice(2)).catch((error: unknown) => {
  io.stderr(
    `rlm-server: ${RlmError.is(error) ? `${error.code}: ${error.message}` : String(error)}\n`,
  );
  // Exit now: a start that failed late (the port taken) may have resumed runs already, and they
  // must not go on in a process that serves nobody.
  process.exit(1);
});
