#!/usr/bin/env node
import { readFileSync } from 'node:fs';

// The only place with side effects: read the real process, run, set the exit code.
// A closed pipe (`rlm trace x | head`) is the reader saying it has seen enough, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}
const { version } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as {
  version: string;
};
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // What commander prints for it, without loading the command tree: a version check in a script
  // or a shell prompt costs Node's start-up and nothing more.
  process.stdout.write(`${version}\n`);
} else {
  // Imported here, not at the top, so the line above stays the whole cost of `rlm --version`.
  const [{ createExecutorEngine }, { createNodeIo }, { runCli }] = await Promise.all([
    import('./engine/executor-engine.js'),
    import('./node-io.js'),
    import('./run-cli.js'),
  ]);
  process.exitCode = await runCli(argv, createNodeIo(), {
    engine: createExecutorEngine(),
    version,
  });
}
